"""A worker of a test cluster killed mid-job, for the tests that check a job's output
survives it."""

import contextlib
import os
import signal
import threading


@contextlib.contextmanager
def a_worker_killed_when_busy(client):
    """While the block runs, kills (SIGKILL) one worker process of ``client``'s cluster
    once tasks are running; afterwards checks that it is gone."""
    victim = sorted(client.run(os.getpid).values())[0]

    def kill_when_busy():
        while not client.processing() or not any(client.processing().values()):
            threading.Event().wait(0.01)
        os.kill(victim, signal.SIGKILL)

    killer = threading.Thread(target=kill_when_busy)
    killer.start()
    yield
    killer.join()
    assert victim not in client.run(os.getpid).values()
