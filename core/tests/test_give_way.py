"""Background threads give way to the requests their process answers (core.give_way): they wait
while another thread is answering a request, never for their own thread's request, and at most as
long as they ask."""

import threading

from django.http import HttpResponse
from django.test import Client, override_settings
from django.urls import path

from core import give_way as module
from core.give_way import give_way

answering, finish = threading.Event(), threading.Event()


def waits_until_told(request):
    answering.set()
    finish.wait(timeout=30)
    return HttpResponse("done")


urlpatterns = [path("wait/", waits_until_told)]


def in_a_thread(function):
    thread = threading.Thread(target=function)
    thread.start()
    return thread


@override_settings(ROOT_URLCONF=__name__)
def test_a_request_another_thread_answers_is_waited_for_until_its_answer_is_closed():
    answering.clear()
    finish.clear()
    answers = []
    server = in_a_thread(lambda: answers.append(Client().get("/wait/").content))
    answering.wait(timeout=30)
    assert give_way(0) is False
    finish.set()
    assert give_way(30) is True
    server.join()
    assert answers == [b"done"]


def test_the_thread_answering_a_request_does_not_wait_for_itself():
    module.request_started()
    try:
        assert give_way(0) is True
        others = []
        in_a_thread(lambda: others.append(give_way(0))).join()
        assert others == [False]
    finally:
        module.request_finished()
    assert give_way(0) is True


def test_a_request_that_comes_in_while_the_caller_lets_it_in_is_waited_for(monkeypatch):
    started, finish = threading.Event(), threading.Event()

    def answer():
        module.request_started()
        started.set()
        finish.wait(timeout=30)
        module.request_finished()

    servers = []

    def a_request_comes_in(seconds):
        assert seconds == module.LET_IN
        servers.append(in_a_thread(answer))
        started.wait(timeout=30)

    monkeypatch.setattr(module.time, "sleep", a_request_comes_in)
    assert give_way(0) is False
    finish.set()
    servers[0].join()
