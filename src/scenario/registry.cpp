#include "sim/scenario/registry.hpp"

#include <stdexcept>

namespace sim::scenario {

void Registry::add_entry(Entry e) {
  auto key = std::make_pair(e.category, e.name);
  if (entries_.count(key) != 0) {
    throw std::logic_error("component \"" + e.name + "\" is registered twice in category " +
                           e.category);
  }
  entries_.emplace(std::move(key), std::move(e));
}

void Registry::add_workload(traces::WorkloadKind kind) {
  add_entry({kWorkloadCategory, kind.name, kind.description, kind.schema});
  const std::string name = kind.name;
  workloads_.emplace(name, std::move(kind));
}

void Registry::add_platform(platform::PlatformKind kind) {
  add_entry({kPlatformCategory, kind.name, kind.description, kind.schema});
  const std::string name = kind.name;
  platforms_.emplace(name, std::move(kind));
}

void Registry::add_policy(policy::PolicyKind kind) {
  add_entry({kind.category, kind.name, kind.description, kind.schema});
  policies_.add(std::move(kind));
}

const traces::WorkloadKind& Registry::workload(const std::string& name) const {
  const auto it = workloads_.find(name);
  if (it == workloads_.end()) throw std::out_of_range("no workload component \"" + name + "\"");
  return it->second;
}

const platform::PlatformKind& Registry::platform(const std::string& name) const {
  const auto it = platforms_.find(name);
  if (it == platforms_.end()) throw std::out_of_range("no platform component \"" + name + "\"");
  return it->second;
}

std::vector<Registry::Entry> Registry::entries() const {
  std::vector<Entry> out;
  out.reserve(entries_.size());
  for (const auto& [key, e] : entries_)
    out.push_back(e);
  return out;
}

std::vector<std::string> Registry::categories() const {
  std::vector<std::string> out;
  for (const auto& [key, e] : entries_) {
    if (out.empty() || out.back() != key.first) out.push_back(key.first);
  }
  return out;
}

const config::Schema* Registry::find(const std::string& category, const std::string& type) const {
  const auto it = entries_.find({category, type});
  return it == entries_.end() ? nullptr : it->second.schema.get();
}

std::vector<std::string> Registry::types(const std::string& category) const {
  std::vector<std::string> out;
  for (const auto& [key, e] : entries_) {
    if (key.first == category) out.push_back(key.second);
  }
  return out;
}

}  // namespace sim::scenario
