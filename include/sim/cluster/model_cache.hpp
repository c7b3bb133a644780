#pragma once
/// Model bytes a host keeps in spare memory after a cold start (DESIGN.md "Cold start"), with
/// least-recently-used eviction. The cache only ever uses memory nobody reserved: when an
/// instance needs memory, the host evicts from here first.

#include <cstdint>
#include <list>
#include <map>
#include <string>
#include <vector>

namespace sim::cluster {

class ModelCache {
 public:
  [[nodiscard]] bool contains(const std::string& model) const { return index_.count(model) != 0; }
  /// Marks the model most recently used; false if absent.
  bool touch(const std::string& model);
  /// Inserts (or refreshes) the model's bytes, evicting least-recently-used entries until the
  /// cache fits in `capacity_bytes`. A model larger than the capacity is not kept.
  /// Returns the evicted model names, oldest first.
  std::vector<std::string> insert(const std::string& model, double bytes, double capacity_bytes);
  /// Evicts least-recently-used entries until the cache holds at most `capacity_bytes`.
  std::vector<std::string> shrink_to(double capacity_bytes);
  void clear();

  [[nodiscard]] double bytes() const { return bytes_; }
  [[nodiscard]] std::size_t size() const { return index_.size(); }
  /// Cached model names, sorted.
  [[nodiscard]] std::vector<std::string> models() const;
  /// models() into `out`, reusing its strings' storage.
  void models(std::vector<std::string>& out) const;
  [[nodiscard]] std::uint64_t evictions() const { return evictions_; }

 private:
  struct Entry {
    std::string model;
    double bytes = 0.0;
  };
  std::list<Entry> lru_;  ///< front = most recently used
  std::map<std::string, std::list<Entry>::iterator> index_;
  double bytes_ = 0.0;
  std::uint64_t evictions_ = 0;
};

}  // namespace sim::cluster
