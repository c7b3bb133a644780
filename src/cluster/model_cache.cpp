#include "sim/cluster/model_cache.hpp"

namespace sim::cluster {

bool ModelCache::touch(const std::string& model) {
  const auto it = index_.find(model);
  if (it == index_.end()) return false;
  lru_.splice(lru_.begin(), lru_, it->second);
  return true;
}

std::vector<std::string> ModelCache::insert(const std::string& model, double bytes,
                                            double capacity_bytes) {
  if (const auto it = index_.find(model); it != index_.end()) {
    bytes_ -= it->second->bytes;
    lru_.erase(it->second);
    index_.erase(it);
  }
  if (bytes > capacity_bytes) return shrink_to(capacity_bytes);
  auto evicted = shrink_to(capacity_bytes - bytes);
  lru_.push_front({model, bytes});
  index_[model] = lru_.begin();
  bytes_ += bytes;
  return evicted;
}

std::vector<std::string> ModelCache::shrink_to(double capacity_bytes) {
  std::vector<std::string> evicted;
  while (!lru_.empty() && bytes_ > capacity_bytes) {
    const Entry& e = lru_.back();
    bytes_ -= e.bytes;
    evicted.push_back(e.model);
    index_.erase(e.model);
    lru_.pop_back();
    ++evictions_;
  }
  if (lru_.empty()) bytes_ = 0.0;  // no drift from repeated subtraction
  return evicted;
}

void ModelCache::clear() {
  lru_.clear();
  index_.clear();
  bytes_ = 0.0;
}

std::vector<std::string> ModelCache::models() const {
  std::vector<std::string> out;
  models(out);
  return out;
}

void ModelCache::models(std::vector<std::string>& out) const {
  out.resize(index_.size());
  std::size_t k = 0;
  for (const auto& [name, it] : index_)
    out[k++] = name;
}

}  // namespace sim::cluster
