#include "sim/policy/policy_registry.hpp"

#include <stdexcept>

namespace sim::policy {

std::vector<std::string> policy_categories() {
  return {kBatcher,   kDispatcher,        kAutoscaler,  kPlacement, kGpuPartitioner,
          kKeepAlive, kColdStartSourcing, kProcurement, kPlanner};
}

void PolicyRegistry::add(PolicyKind kind) {
  if (!kind.schema || !kind.make) {
    throw std::logic_error("policy \"" + kind.name + "\" is registered without schema or factory");
  }
  const auto cats = policy_categories();
  if (std::find(cats.begin(), cats.end(), kind.category) == cats.end()) {
    throw std::logic_error("policy \"" + kind.name + "\" has unknown category \"" + kind.category +
                           "\"");
  }
  auto key = std::make_pair(kind.category, kind.name);
  if (kinds_.count(key) != 0) {
    throw std::logic_error("policy \"" + kind.name + "\" is registered twice in category " +
                           kind.category);
  }
  kinds_.emplace(std::move(key), std::move(kind));
}

const PolicyKind* PolicyRegistry::find(const std::string& category, const std::string& name) const {
  const auto it = kinds_.find({category, name});
  return it == kinds_.end() ? nullptr : &it->second;
}

std::vector<const PolicyKind*> PolicyRegistry::kinds() const {
  std::vector<const PolicyKind*> out;
  for (const auto& [key, k] : kinds_)
    out.push_back(&k);
  return out;
}

std::unique_ptr<Policy> PolicyRegistry::make(const std::string& category,
                                             const nlohmann::json& resolved,
                                             PolicyContext context) const {
  const std::string name = resolved.value("type", std::string{});
  const PolicyKind* k = find(category, name);
  if (k == nullptr) {
    throw std::invalid_argument("no " + category + " policy named \"" + name + "\"");
  }
  return k->make(resolved, std::move(context));
}

std::shared_ptr<config::Schema> policy_schema(const std::string& category, const std::string& name,
                                              const std::string& doc) {
  return std::make_shared<config::Schema>(category + "/" + name, doc);
}

}  // namespace sim::policy
