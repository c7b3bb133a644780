#pragma once
/// The service class of a request (Protean's strict and best-effort classes). One type for the
/// whole simulator: a workload's arrivals carry it (sim::traces), policies order by it
/// (sim::policy) and the request records keep it (sim::metrics); each layer names it through
/// a using-declaration, so a request's class is copied, never converted.

#include <cstdint>

namespace sim {

enum class RequestClass : std::uint8_t { kStrict = 0, kBestEffort = 1 };

}  // namespace sim
