#pragma once
/// The rates a generated workload may have, declared once: the workload schemas enforce them,
/// and tools that write workloads (dcsim plan --scenario) check them first so that every file
/// they write is one `dcsim validate` accepts.

namespace sim::traces {

/// Lowest rate of a Poisson or constant generator: a positive floor, so that a zero or
/// denormal rate (an arrival never, or after an overflowing delay) is an input error.
inline constexpr double kMinGeneratedRate = 1e-12;

/// Highest rate a generator or a rescale may ask for: 1e8 requests per second is ~1,000 times
/// the peak of the Azure Functions traces; a higher rate is a typo (1e12/s once made a run
/// grow by 1.7 GB of queued requests per 30 s of wall time without ever finishing).
inline constexpr double kMaxGeneratedRate = 1e8;

}  // namespace sim::traces
