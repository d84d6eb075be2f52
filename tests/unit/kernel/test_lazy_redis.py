"""The process's Redis client is made by its first use, once, however many threads reach for it together."""

import threading

from kernel.redis_guard import LazyRedis


class Client:
    """Stands in for the guarded client (the network edge is not what these rules are about)."""

    def __init__(self) -> None:
        self.registered: list[str] = []
        self.closed = False

    def ping(self) -> bool:
        return True

    def register_script(self, source: str):
        self.registered.append(source)
        return lambda *args, **kwargs: (source, kwargs)

    def close(self) -> None:
        self.closed = True


def counted() -> tuple[LazyRedis, list[Client]]:
    made: list[Client] = []

    def make() -> Client:
        made.append(Client())
        return made[-1]

    return LazyRedis(make), made


def test_the_client_is_not_made_until_a_command_is_sent():
    lazy, made = counted()
    assert not lazy.made and made == []
    assert lazy.ping() is True
    assert lazy.made and len(made) == 1


def test_a_script_is_registered_with_its_first_call_not_when_a_pacer_asks_for_it():
    lazy, made = counted()
    script = lazy.register_script("return 1")
    assert made == []
    assert script(keys=["k"]) == ("return 1", {"keys": ["k"]})
    script(keys=["k"])
    assert made[0].registered == ["return 1"]  # registered once


def test_closing_a_client_never_made_makes_none():
    lazy, made = counted()
    lazy.close()
    assert made == []
    lazy.ping()
    lazy.close()
    assert made[0].closed


def test_threads_reaching_for_it_together_make_one_client():
    lazy, made = counted()
    start = threading.Barrier(16)

    def reach() -> None:
        start.wait()
        lazy.ping()

    threads = [threading.Thread(target=reach) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(made) == 1
