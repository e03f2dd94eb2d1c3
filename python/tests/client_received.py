"""What a Dask client receives during a job, for the tests that check the workers keep
the data to themselves."""

import distributed


def record_received(monkeypatch):
    """The list every value the client receives (``Future.result``, ``Client.gather``)
    is appended to, until ``monkeypatch`` is undone."""
    received = []
    result, gather = distributed.Future.result, distributed.Client.gather

    def recording_result(future, *args, **kwargs):
        value = result(future, *args, **kwargs)
        received.append(value)
        return value

    def recording_gather(client, futures, *args, **kwargs):
        values = gather(client, futures, *args, **kwargs)
        received.append(values)
        return values

    monkeypatch.setattr(distributed.Future, "result", recording_result)
    monkeypatch.setattr(distributed.Client, "gather", recording_gather)
    return received


def byte_size(value):
    """The bytes of ``value``'s byte strings, 8 for each other value, in nested lists."""
    if isinstance(value, (list, tuple)):
        return sum(byte_size(v) for v in value)
    return len(value) if isinstance(value, bytes) else 8
