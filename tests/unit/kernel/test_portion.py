"""A pass's portion of one periodic kind: at most its limit, one item and no more once live work waits."""

from kernel.portion import Portion


def _taken(portion: Portion, available: int) -> int:
    done = 0
    while done < available and portion.more(done):
        done += 1
    return done


def test_a_portion_takes_up_to_its_limit_and_says_it_was_cut_when_more_were_there():
    portion = Portion(3)
    assert _taken(portion, 10) == 3 and portion.cut


def test_a_portion_that_ran_out_of_work_is_not_cut():
    portion = Portion(3)
    assert _taken(portion, 2) == 2 and not portion.cut


def test_waiting_work_stops_a_portion_after_its_first_item():
    portion = Portion(3, interrupted=lambda: True)
    assert _taken(portion, 10) == 1 and portion.cut  # never none: the periodic work cannot starve


def test_work_that_arrives_midway_stops_the_portion_at_the_next_item():
    arrived = []
    portion = Portion(5, interrupted=lambda: bool(arrived))
    assert portion.more(0) and portion.more(1)
    arrived.append("a webhook")
    assert not portion.more(2) and portion.cut
