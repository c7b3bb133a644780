#pragma once
/// Building the read-only views the policies get (policy::PlatformView and its parts) from the
/// control plane's state. Pure functions of const state: building a view changes nothing.

#include <memory>
#include <span>
#include <vector>

#include "model.hpp"
#include "sim/policy/platform_view.hpp"

namespace sim::platform::serverless {

/// What a PlatformView shows.
struct ViewInputs {
  Time now;
  Time control_interval;
  const std::vector<Time>& rate_windows;
  int pending_vms = 0;
  const std::vector<std::unique_ptr<Fn>>& functions;
  const Instances& instances;
  const Hosts& hosts;
  /// `instances` by id (null where none), when the caller keeps such an index: walked instead
  /// of the map's scattered nodes while it is at most twice the map's size.
  const std::vector<Inst*>* by_id = nullptr;
  /// For refresh_view: when not null, the view refreshed was built from these same
  /// instances (none added or removed since), and only the views of these (repeats allowed)
  /// may differ from the instances; no instance is cold-starting. Then only their views are
  /// rewritten. An instance not found in the view makes the refresh walk every instance.
  const std::vector<const Inst*>* changed = nullptr;
};

[[nodiscard]] policy::InstanceView instance_view(const Inst& inst);
/// Sets every field of `view` to instance_view(inst)'s, in place.
void fill_instance_view(policy::InstanceView& view, const Inst& inst);
/// Every field of the function's view at `now`: what build_view shows of it, and what the
/// keep-alive gets when an instance becomes idle. Views are built at non-decreasing times
/// (the rates keep their place in the arrivals, Fn::window_start).
[[nodiscard]] policy::FunctionView function_view(const Fn& fn, Time now,
                                                 const std::vector<Time>& rate_windows);
/// Makes `view`, a function_view(fn, ...) of an earlier time, equal to function_view(fn, now,
/// rate_windows) by rewriting only what changes during a run (queue, arrivals, rates, instance
/// counts), reusing its storage: the keep-alive's view, refreshed per finished batch. Cost: a
/// step past the arrivals that left each rate window since the last view, the first queued
/// request of the function in each of its queues (only when it has queued requests), and the
/// instance counts Lifecycle keeps; no pass over the instances, no allocation.
void refresh_function_view(policy::FunctionView& view, const Fn& fn, Time now,
                           const std::vector<Time>& rate_windows);
[[nodiscard]] std::vector<policy::HostView> hosts_view(const Hosts& hosts);
/// Makes `views` equal to hosts_view(hosts) in place, reusing its storage: the platform
/// refreshes its placement view after every start, which rebuilt from scratch was a large
/// share of a 2,000-host run.
void refresh_hosts_view(std::vector<policy::HostView>& views, const Hosts& hosts);
/// Makes views[host] equal to hosts_view(hosts)[host] in place (views has one per host).
void refresh_host_view(std::vector<policy::HostView>& views, const Hosts& hosts, int host);
[[nodiscard]] policy::PlatformView build_view(const ViewInputs& in);
/// Makes `view` equal to build_view(in) reusing its storage. A view refreshed before must have
/// been built from the same control plane (its functions' static fields are kept; the
/// functions are rebuilt only when their ids differ) at an earlier or equal time.
void refresh_view(policy::PlatformView& view, const ViewInputs& in);

}  // namespace sim::platform::serverless
