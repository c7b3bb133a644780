"""dcsim from Python: run scenarios into pandas DataFrames (see docs/python.md).

    import dcsim
    r = dcsim.run("scenarios/quickstart.json", set={"workload.0.rate": "80/s"}, seed=7)
    r.summary        # dict, as summary.json
    r.requests       # DataFrame, the columns of requests.h5
    r.timeseries     # DataFrame, as timeseries.csv
    r.scenario       # dict, the resolved scenario (as scenario.json)
"""

from ._core import (BatchDecision, BatchQueueView, Decisions, DispatchView, Error, FunctionView,
                    InstanceConfig, InstanceState, InstanceView, Location, PlacementRequest,
                    PlatformView, ReleaseVm, Reconfigure, RequestVm, StartInstance, StopInstance,
                    Time, __version__)
from . import policy
from .runs import Result, describe, list, run, validate
from .sweeps import sweep

__all__ = ["Error", "Result", "describe", "list", "run", "validate", "sweep", "policy", "Decisions",
           "StartInstance", "StopInstance", "Reconfigure", "RequestVm", "ReleaseVm",
           "BatchDecision", "Location", "InstanceConfig", "InstanceState", "Time", "PlatformView",
           "FunctionView", "InstanceView", "DispatchView", "BatchQueueView", "PlacementRequest",
           "__version__"]
