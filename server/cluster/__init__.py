"""Several replicas on one Redis: what ``[cluster] redis`` switches on.

    connection.py  opening Redis, checked at start (a clear line and exit 2 when it cannot be reached);
                   pools that replace connections Redis closed, listeners told when they were remade
    jobs.py        RedisJobStore: jobs, events and results shared by every replica; leases; wake-ups
    notices.py     catalog changes told to the other replicas over pub/sub (they look again)

Nothing here is imported unless ``[cluster] redis`` is set (``toolbay.assembly`` imports it then).
"""
