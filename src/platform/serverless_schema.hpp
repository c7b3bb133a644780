#pragma once
/// The "serverless" platform kind's parameter schema (serverless_schema.cpp): every key of a
/// scenario's `platform` section, its default and its documentation.

#include <memory>

#include "sim/config/schema.hpp"

namespace sim::platform {

[[nodiscard]] std::shared_ptr<const config::Schema> serverless_schema();

}  // namespace sim::platform
