"""What the classifier's probabilities become: an answer at once, buttons for the plausible readings, or nothing."""

from datetime import UTC, datetime

from cognitive_core.language.guesses import FLOOR, HARMLESS, choose_sure, decide, offer
from cognitive_core.presses.rules import PressView, decide_press
from cognitive_core.situation import PersonView
from concern import commands as c

EVERYTHING = frozenset({*HARMLESS, "ask", "tell", "nudge", "cancel", "pause", "quiet", "remind", "snooze", "resume"})
BOSS = PersonView("p_boss", "老板", role="principal", timezone="Asia/Shanghai")
ZS = PersonView("p_zhangsan", "张三", aliases=("Zhang San",))
PEOPLE = (BOSS, ZS)
NOW = datetime(2026, 3, 18, 2, 0, tzinfo=UTC)
OPEN = (("con_1", "p_zhangsan", "提测？"),)


def _decide(text: str, probabilities: dict[str, float], open_asks: tuple = OPEN):
    return decide(
        text, probabilities, sure=0.5, people=PEOPLE, speaker=BOSS, open_asks=open_asks, tz="Asia/Shanghai", now=NOW
    )


def test_a_sure_guess_of_a_harmless_read_is_answered_at_once():
    assert offer({"status": 0.7, "ask": 0.2, "none": 0.1}, sure=0.5, offerable=EVERYTHING).answer == "status"


def test_a_sure_guess_that_would_contact_someone_is_only_offered_as_a_button():
    made = offer({"ask": 0.9, "status": 0.06, "none": 0.04}, sure=0.5, offerable=EVERYTHING)
    assert made.answer is None and made.choices == ("ask",)


def test_an_unsure_guess_offers_at_most_three_readings_best_first_none_and_faint_ones_left_out():
    probabilities = {"none": 0.3, "status": 0.25, "ask": 0.2, "did": 0.16, "tell": 0.09}
    made = offer(probabilities, sure=0.5, offerable=EVERYTHING)
    assert made.answer is None and made.choices == ("status", "ask", "did")
    assert offer({"status": 0.4, "tell": FLOOR - 0.01, "none": 0.3}, sure=0.5, offerable=EVERYTHING).choices == (
        "status",
    )


def test_a_sure_none_offers_nothing_and_an_unsure_harmless_guess_is_only_offered():
    assert offer({"none": 0.8, "status": 0.2}, sure=0.5, offerable=EVERYTHING).choices == ()
    assert offer({"did": 0.45, "none": 0.4, "ask": 0.15}, sure=0.5, offerable=EVERYTHING).choices == ("did", "ask")


def test_readings_this_message_cannot_be_are_not_offered():
    made = offer({"ask": 0.5, "status": 0.3, "none": 0.2}, sure=0.6, offerable=frozenset(HARMLESS))
    assert made.choices == ("status",)


def test_an_ask_is_offered_only_with_a_named_person_and_its_button_carries_the_pending_request():
    assert _decide("上线的事有谱了吗", {"ask": 0.6, "none": 0.4}) is None  # nobody named: nothing one press completes
    d = _decide("张三 上线的事有谱了吗", {"ask": 0.6, "status": 0.25, "none": 0.15})
    assert d.rule == "did_you_mean:guess" and d.command.template == "did_you_mean"
    ask, status = d.command.values["guesses"]
    assert (ask["verb"], ask["person_id"], ask["args"]["as"]) == ("ask_or_tell", "p_zhangsan", "ask")
    assert ask["args"]["text"].startswith("上线的事有谱了吗")
    assert (status["intent"], status["verb"], status["args"]) == (
        "status_of",
        "guess",
        {"intent": "status", "person_id": "p_zhangsan"},
    )


def test_a_nudge_is_offered_only_on_the_one_open_question_to_that_person():
    [nudge] = _decide("张三那个", {"nudge": 0.6, "none": 0.4}).command.values["guesses"]
    assert (nudge["verb"], nudge["args"]) == ("nudge_pick", {"concern_id": "con_1"})
    assert _decide("张三那个", {"nudge": 0.6, "none": 0.4}, open_asks=()) is None


def test_a_sure_harmless_guess_answers_and_says_which_guess_it_was():
    d = _decide("张三咋样了", {"status": 0.8, "none": 0.2})
    assert d.rule == "guess:status" and d.command == c.Reply("concerns", {"target_person_id": "p_zhangsan"})
    assert d.notes == {"guess": {"intent": "status", "p": 0.8}}


def test_the_threshold_is_the_lowest_at_which_every_out_of_fold_harmless_guess_was_right():
    right = [({"status": 0.6, "none": 0.4}, "status")] * 5
    wrong = [({"status": 0.4, "ask": 0.35, "none": 0.25}, "ask")]
    probabilities, truths = zip(*(right + wrong), strict=True)
    assert choose_sure(list(probabilities), list(truths)) == 0.45
    assert choose_sure(list(probabilities[:3]), list(truths[:3])) == 1.0  # too few to trust: never answered


def test_a_pressed_reading_is_that_read_or_the_question_for_what_it_lacks():
    def pressed(args):
        return decide_press(PressView(verb="guess", args=args, addressee_id="p_boss", presser_id="p_boss")).command

    assert pressed({"intent": "status"}) == c.Reply("concerns", {})
    assert pressed({"intent": "did"}) == c.Reply("did", {"today": False, "window_s": 86400})
    assert pressed({"intent": "brief"}) == c.Brief(everything=False)
    assert pressed({"intent": "pause"}) == c.Reply("usage:pause")  # how long: the one missing thing
    assert pressed({"intent": "snooze"}) == c.Reply("usage:later")


def test_a_pressed_ask_reading_completes_its_request_as_the_ask_or_tell_press_does():
    d = _decide("张三 上线的事有谱了吗", {"ask": 0.6, "tell": 0.3, "none": 0.1})
    ask, tell = d.command.values["guesses"]
    for guess, kind in ((ask, c.Ask), (tell, c.Tell)):
        view = PressView(verb=guess["verb"], args=guess["args"], addressee_id="p_boss", presser_id="p_boss")
        command = decide_press(view).command
        assert isinstance(command, kind) and command.target_person_id == "p_zhangsan"
