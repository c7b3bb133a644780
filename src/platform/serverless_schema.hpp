#pragma once
/// The "serverless" platform kind's parameter schema (serverless_schema.cpp): every key of a
/// scenario's `platform` section, its default and its documentation.

#include <memory>

#include "sim/config/schema.hpp"
#include "sim/platform/serverless_config.hpp"

namespace sim::platform {

[[nodiscard]] std::shared_ptr<const config::Schema> serverless_schema();

/// The platform's configuration from a `platform` section resolved against serverless_schema()
/// (every key present; the policies are read by the kind). serverless_config.cpp.
[[nodiscard]] ServerlessConfig read_serverless_config(const nlohmann::json& resolved);

}  // namespace sim::platform
