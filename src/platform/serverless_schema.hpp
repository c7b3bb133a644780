#pragma once
/// The "serverless" platform kind's parameter schema (serverless_schema.cpp): every key of a
/// scenario's `platform` section, its default and its documentation.

#include <memory>

#include "sim/config/schema.hpp"
#include "sim/platform/serverless_config.hpp"

namespace sim::platform {

[[nodiscard]] std::shared_ptr<const config::Schema> serverless_schema();

/// `section` resolved against serverless_schema() at /platform, with every policy component
/// taken as an empty schema (policies are no part of ServerlessConfig; the kind reads them).
/// Problems go to `diag`. serverless_config.cpp.
[[nodiscard]] nlohmann::json resolve_platform_section(const nlohmann::json& section,
                                                      config::Diagnostics& diag);

/// The platform's configuration from a `platform` section resolved against serverless_schema()
/// (every key present; the policies are read by the kind). serverless_config.cpp.
[[nodiscard]] ServerlessConfig read_serverless_config(const nlohmann::json& resolved);

}  // namespace sim::platform
