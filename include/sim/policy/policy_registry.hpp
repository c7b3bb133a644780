#pragma once
/// Policies by name. One explicit function registers the built-in ones
/// (`register_builtin_policies`, one line per policy); a duplicate name in a category is an
/// error. The platform builds its policies through the PolicyFactory interface, so the core
/// never depends on a specific policy.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config/schema.hpp"
#include "sim/policy/policy.hpp"

namespace sim::policy {

struct PolicyKind {
  std::string category;  ///< one of the k* category names in policy.hpp
  std::string name;
  std::string description;
  std::shared_ptr<const config::Schema> schema;
  /// Builds the policy from its resolved (validated, defaults filled) JSON object.
  std::function<std::unique_ptr<Policy>(const nlohmann::json& resolved, PolicyContext context)>
      make;
};

class PolicyFactory {
 public:
  virtual ~PolicyFactory() = default;
  /// Builds the policy named by resolved["type"]. Throws std::invalid_argument when no policy
  /// of that name is registered in `category`.
  [[nodiscard]] virtual std::unique_ptr<Policy> make(const std::string& category,
                                                     const nlohmann::json& resolved,
                                                     PolicyContext context) const = 0;

  /// make() and a check that the policy implements interface T.
  template <class T>
  [[nodiscard]] std::unique_ptr<T> make_as(const std::string& category,
                                           const nlohmann::json& resolved,
                                           PolicyContext context) const {
    auto p = make(category, resolved, std::move(context));
    auto* typed = dynamic_cast<T*>(p.get());
    if (typed == nullptr) {
      throw std::logic_error("policy \"" + resolved.value("type", std::string{}) +
                             "\" registered as a " + category +
                             " does not implement that interface");
    }
    p.release();
    return std::unique_ptr<T>(typed);
  }
};

class PolicyRegistry final : public PolicyFactory {
 public:
  /// Throws std::logic_error on a duplicate (category, name) or a kind without schema/make.
  void add(PolicyKind kind);
  [[nodiscard]] const PolicyKind* find(const std::string& category, const std::string& name) const;
  /// Every kind, ordered by category then name.
  [[nodiscard]] std::vector<const PolicyKind*> kinds() const;
  [[nodiscard]] std::unique_ptr<Policy> make(const std::string& category,
                                             const nlohmann::json& resolved,
                                             PolicyContext context) const override;

 private:
  std::map<std::pair<std::string, std::string>, PolicyKind> kinds_;
};

/// Every policy category, in the order the platform applies them.
std::vector<std::string> policy_categories();

/// An empty schema for a policy, named "<category>/<name>" as the scenario reference lists it;
/// the policy's kind adds its parameters.
std::shared_ptr<config::Schema> policy_schema(const std::string& category, const std::string& name,
                                              const std::string& doc);

/// Registers the built-in (reference) policies. Defined in sim_policies.
void register_builtin_policies(PolicyRegistry& registry);

}  // namespace sim::policy
