"""Policies written in Python: subclass one of the bases below, register it under a name, and
select it from a scenario like a built-in policy:

    class Greedy(dcsim.policy.Autoscaler):
        def decide(self, view):                      # view: dcsim.PlatformView (read-only)
            return dcsim.Decisions(start=[...], stop=[...])

    dcsim.policy.register("greedy", Greedy, params={"headroom": 1.2})
    dcsim.run("s.json", set={"platform.policies.autoscaler": {"type": "greedy"}})

A policy object is made for each run from its resolved parameters (`self.params`, a dict with
"type" and every parameter, defaults filled in). The views it receives are the platform's own
objects, valid only during the call: keep numbers, not views.
"""

from . import _core

_CATEGORIES = ("autoscaler", "dispatcher", "batcher", "placement", "keep_alive")


class Policy:
    category = None

    def __init__(self, params):
        self.params = params


class Autoscaler(Policy):
    """Called at every control tick: decide(PlatformView) -> Decisions."""
    category = "autoscaler"

    def decide(self, view):
        raise NotImplementedError


class Dispatcher(Policy):
    """Called per batch: choose(DispatchView) -> an id of view.idle, or None to hold the batch.
    Set wants_platform_view = True to get view.platform (costs a PlatformView per batch)."""
    category = "dispatcher"
    wants_platform_view = False

    def choose(self, view):
        raise NotImplementedError


class Batcher(Policy):
    """select(BatchQueueView) -> BatchDecision(take=[indices into view.queue], retry_at=Time)."""
    category = "batcher"

    def select(self, view):
        raise NotImplementedError


class Placement(Policy):
    """place(PlacementRequest, PlatformView) -> Location, or None when nothing fits."""
    category = "placement"

    def place(self, request, view):
        raise NotImplementedError


class KeepAlive(Policy):
    """idle_timeout(InstanceView, FunctionView) -> Time (Time.max(): forever);
    prewarm(PlatformView) -> Decisions (or a list of StartInstance: its starts)."""
    category = "keep_alive"

    def idle_timeout(self, instance, function):
        raise NotImplementedError

    def prewarm(self, view):
        return []


# Registered Python policies, by (category, name): this interpreter's additions to the built-in
# registry, handed to every run, validate and sweep.
_registered = {}


def register(name, cls=None, *, description="", params=None):
    """Registers `cls` (a subclass of one of the bases) under `name` in its category.

    `params` maps each parameter to its default; the default's type (bool, int, float, str) is
    the parameter's type, checked by the scenario loader like a built-in policy's. Usable as a
    decorator: @dcsim.policy.register("name", params={...})."""
    def add(c):
        category = getattr(c, "category", None)
        if not (isinstance(c, type) and issubclass(c, Policy)) or category not in _CATEGORIES:
            raise TypeError(f"dcsim.policy.register: {c!r} is not a subclass of "
                            "dcsim.policy.Autoscaler, Dispatcher, Batcher, Placement or KeepAlive")
        _registered[(category, name)] = (category, name,
                                         description or (c.__doc__ or "").strip().split("\n")[0]
                                         or f"Python policy {c.__name__}",
                                         c, dict(params or {}))
        return c
    return add if cls is None else add(cls)


def unregister(name, category=None):
    """Removes the Python policies called `name` (in `category`, or in every category)."""
    for key in [k for k in _registered if k[1] == name and category in (None, k[0])]:
        del _registered[key]


def registrations():
    """What _core's run and validate take: [(category, name, description, factory, params)]."""
    return list(_registered.values())
