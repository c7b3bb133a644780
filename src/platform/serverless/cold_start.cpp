#include "cold_start.hpp"

#include <algorithm>
#include <stdexcept>

namespace sim::platform::serverless {

using nlohmann::json;

/// A download of one model to one host without a network section: later requests join it
/// (download sharing, Flashpoint thesis §5.1).
struct ColdStarts::PendingDownload {
  EventHandle done;
  std::vector<InstanceId> waiters;
};

/// A chained multicast of one model from one source (Flashpoint thesis §6.2): gathered while
/// cold starts join at one simulated time, then one flow source -> hosts[0] -> hosts[1] ...
struct ColdStarts::Chain {
  std::pair<std::string, int> key;  ///< model, source host (-1: the store)
  double bytes = 0.0;
  std::vector<int> hosts;                          ///< receivers in joining order
  std::map<int, std::vector<InstanceId>> waiters;  ///< by receiver host
  std::optional<net::FlowHandle> flow;             ///< with a network, once launched
  EventHandle done;                                ///< without a network, once launched
  bool launched = false;
};

ColdStarts::ColdStarts(const ServerlessConfig& config, Simulation& sim, ColdStartNetwork network,
                       Hosts& hosts, Instances& instances, policy::ColdStartSourcing& sourcing,
                       DecisionCounts& counts, std::function<void(Inst&)> ready)
    : config_(config),
      sim_(sim),
      net_(network),
      hosts_(hosts),
      instances_(instances),
      sourcing_(sourcing),
      counts_(counts),
      ready_(std::move(ready)) {}

ColdStarts::~ColdStarts() = default;

Inst* ColdStarts::find(InstanceId id) {
  const auto it = instances_.find(id);
  return it == instances_.end() ? nullptr : it->second.get();
}

void ColdStarts::begin(Inst& inst) {
  ColdStartRecord cs;
  cs.instance = inst.id;
  if (inst.replica) cs.replica = inst.replica->part == 0 ? inst.id : inst.replica->head;
  cs.function = inst.fn->id;
  cs.host = inst.loc.host;
  cs.started = sim_.now();
  inst.boot->log = log_.size();
  log_.push_back(cs);
  Fn& fn = *inst.fn;
  auto& host = *hosts_[static_cast<std::size_t>(inst.loc.host)];
  inst.boot->stage = policy::ColdStartStage::kDownload;
  inst.boot->stage_since = sim_.now();
  policy::SourcingRequest req;
  req.model = fn.spec.model;
  req.bytes = inst.boot->bytes;
  req.host = host.index;
  req.local_copy = host.cache.contains(fn.spec.model);
  for (const auto& h : hosts_)
    if (h->index != host.index && h->available && h->cache.contains(fn.spec.model))
      req.remote_hosts.push_back(h->index);
  // Only for a policy that reads them: the walk of the function's instances is per cold start.
  const bool live_read = sourcing_.reads_live_hosts();
  if (live_read) req.live_hosts = live_hosts(fn, host.index);
  auto choice = sourcing_.choose(req);
  const auto listed = [&choice](const std::vector<int>& hosts) {
    return std::find(hosts.begin(), hosts.end(), choice.host) != hosts.end();
  };
  // A live sender is valid whether or not the policy was shown the list.
  const auto listed_live = [&] {
    return listed(live_read ? req.live_hosts : live_hosts(fn, host.index));
  };
  if ((choice.kind == policy::SourceKind::kLocalMemory && !req.local_copy) ||
      (choice.kind == policy::SourceKind::kRemoteHost && !listed(req.remote_hosts) &&
       !listed_live()) ||
      (choice.kind == policy::SourceKind::kStore && net_.topology && !net_.store)) {
    ++counts_.rejected["sourcing"];
    choice = {policy::SourceKind::kStore, -1};
    if (net_.topology && !net_.store) {
      throw std::invalid_argument("serverless platform: the network has no object store");
    }
  }
  log_[inst.boot->log].source = choice.kind;
  // A remote host may send loaded tensors (SourceChoice::loaded): the receiver skips its load.
  inst.boot->skip_load = choice.kind == policy::SourceKind::kRemoteHost && choice.loaded;
  const InstanceId id = inst.id;
  if (choice.kind == policy::SourceKind::kLocalMemory) {
    host.cache.touch(fn.spec.model);
    inst.boot->skip_load = choice.loaded;
    download_done(id);
    return;
  }
  if (choice.chain && !inst.replica) {  // a part's bytes are not the chain's model
    join_chain(inst, choice);
    return;
  }
  // Without sharing, the transfer's content key is the instance's own, so nothing joins it.
  std::string content =
      choice.share ? fn.spec.model : fn.spec.model + "#instance" + std::to_string(id);
  if (inst.replica) {
    content += "#part" + std::to_string(inst.replica->part) + "/" +
               std::to_string(inst.replica->parts) + "@" + std::to_string(inst.boot->bytes);
  }
  if (net_.transfers != nullptr) {
    const net::NodeId src = choice.kind == policy::SourceKind::kStore
                                ? *net_.store
                                : *hosts_[static_cast<std::size_t>(choice.host)]->nic;
    auto f = net_.transfers->fetch(content, src, *host.nic, inst.boot->bytes,
                                   [this, id] { download_done(id); });
    inst.boot->transfer = f.request;
    return;
  }
  // Fixed-bandwidth model: a download of the same model to the same host is joined.
  const auto key = std::make_pair(content, host.index);
  auto it = downloads_.find(key);
  if (it == downloads_.end()) {
    auto pd = std::make_unique<PendingDownload>();
    const double bps =
        choice.kind == policy::SourceKind::kStore ? config_.store_bps : config_.host_bps;
    pd->done = sim_.schedule_in(transfer_time(inst.boot->bytes, bps), [this, key] {
      auto node = downloads_.extract(key);
      for (const auto w : node.mapped()->waiters)
        download_done(w);
    });
    it = downloads_.emplace(key, std::move(pd)).first;
  }
  it->second->waiters.push_back(id);
}

// Over the function's own instances, not every instance of the platform: a cold start pays
// for its function's live instances only (large runs start thousands).
std::vector<int> ColdStarts::live_hosts(const Fn& fn, int except) const {
  std::vector<int> out;
  for (const InstanceId id : fn.instances) {
    const auto it = instances_.find(id);
    if (it == instances_.end()) continue;
    const Inst& i = *it->second;
    const auto state = i.life.state();
    if (i.replica || i.loc.host == except) continue;
    if (state != InstanceState::kIdle && state != InstanceState::kBusy) continue;
    if (!hosts_[static_cast<std::size_t>(i.loc.host)]->available) continue;
    out.push_back(i.loc.host);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void ColdStarts::join_chain(Inst& inst, const policy::SourceChoice& choice) {
  const Fn& fn = *inst.fn;
  const int src = choice.kind == policy::SourceKind::kStore ? -1 : choice.host;
  const auto key = std::make_pair(fn.spec.model, src);
  auto g = gathering_.find(key);
  if (g == gathering_.end()) {
    const std::uint64_t serial = next_chain_++;
    auto c = std::make_unique<Chain>();
    c->key = key;
    c->bytes = fn.bytes;
    chains_.emplace(serial, std::move(c));
    g = gathering_.emplace(key, serial).first;
    // Launched after every cold start that begins at this simulated time has joined.
    sim_.schedule_at(sim_.now(), [this, serial] { launch_chain(serial); });
  }
  Chain& c = *chains_.at(g->second);
  if (c.waiters.find(inst.loc.host) == c.waiters.end()) c.hosts.push_back(inst.loc.host);
  c.waiters[inst.loc.host].push_back(inst.id);
  log_[inst.boot->log].chained = true;
  ++chained_;
}

void ColdStarts::launch_chain(std::uint64_t serial) {
  const auto it = chains_.find(serial);
  if (it == chains_.end()) return;  // every waiter stopped before the launch
  Chain& c = *it->second;
  gathering_.erase(c.key);
  c.launched = true;
  std::size_t served = 0;
  for (const auto& [host, w] : c.waiters)
    served += w.size();
  ++chain_sizes_[served];
  const auto deliver = [this, serial](std::size_t i) {
    const auto ch = chains_.find(serial);
    if (ch == chains_.end()) return;
    const int h = ch->second->hosts.at(i);
    const auto ids = ch->second->waiters[h];
    ch->second->waiters.erase(h);
    bool left = false;
    for (const auto& [host, w] : ch->second->waiters)
      left = left || !w.empty();
    if (!left) chains_.erase(ch);
    for (const auto id : ids)
      download_done(id);
  };
  if (net_.flows != nullptr) {
    const net::NodeId src =
        c.key.second < 0 ? *net_.store : *hosts_[static_cast<std::size_t>(c.key.second)]->nic;
    std::vector<net::NodeId> receivers;
    for (const int h : c.hosts)
      receivers.push_back(*hosts_[static_cast<std::size_t>(h)]->nic);
    c.flow = net_.flows->start_chain(src, receivers, c.bytes, deliver);
    return;
  }
  // Without a network: every receiver forwards as it receives, so all of them have the bytes
  // after one transfer time at the source's rate.
  const double bps = c.key.second < 0 ? config_.store_bps : config_.host_bps;
  const std::size_t n = c.hosts.size();
  c.done = sim_.schedule_in(transfer_time(c.bytes, bps), [deliver, n] {
    for (std::size_t i = 0; i < n; ++i)
      deliver(i);
  });
}

void ColdStarts::download_done(InstanceId id) {
  Inst* inst = find(id);
  if (inst == nullptr) return;
  inst->boot->transfer.reset();
  const Time now = sim_.now();
  log_[inst->boot->log].download = now - inst->boot->stage_since;
  Fn& fn = *inst->fn;
  auto& host = *hosts_[static_cast<std::size_t>(inst->loc.host)];
  // The bytes now sit in host memory; they stay cached in spare memory after the cold start
  // (a part's bytes are not the model: cached only after model completion).
  if (!inst->replica) host.cache.insert(fn.spec.model, fn.bytes, host.cache_capacity());
  // A model already loaded in a running process needs no runtime start either. Without a
  // runtime stage no event is scheduled, so runs without one keep their event order.
  if (config_.runtime_start > Time::zero() && !inst->boot->skip_load) {
    inst->boot->stage = policy::ColdStartStage::kRuntime;
    inst->boot->stage_since = now;
    inst->timer = sim_.schedule_in(config_.runtime_start, [this, id] { runtime_done(id); });
    return;
  }
  start_load(*inst);
}

void ColdStarts::runtime_done(InstanceId id) {
  Inst* inst = find(id);
  if (inst == nullptr) return;
  log_[inst->boot->log].runtime = sim_.now() - inst->boot->stage_since;
  start_load(*inst);
}

void ColdStarts::start_load(Inst& inst) {
  const InstanceId id = inst.id;
  const Fn& fn = *inst.fn;
  const Time load = inst.boot->skip_load     ? Time::zero()
                    : inst.boot->load_s >= 0 ? ceil_seconds(inst.boot->load_s)
                    : fn.model->cold_start   ? ceil_seconds(fn.model->cold_start->load_s.value)
                                             : transfer_time(fn.bytes, config_.load_bps);
  inst.boot->stage = policy::ColdStartStage::kLoad;
  inst.boot->stage_since = sim_.now();
  inst.timer = sim_.schedule_in(load, [this, id] { load_done(id); });
}

void ColdStarts::load_done(InstanceId id) {
  Inst* inst = find(id);
  if (inst == nullptr) return;
  const Time now = sim_.now();
  log_[inst->boot->log].load = now - inst->boot->stage_since;
  inst->boot->stage = policy::ColdStartStage::kCopy;
  inst->boot->stage_since = now;
  // CPU functions have no device copy.
  const Time copy =
      inst->fn->spec.gpu ? transfer_time(inst->boot->bytes, config_.pcie_bps) : Time::zero();
  inst->timer = sim_.schedule_in(copy, [this, id] { copy_done(id); });
}

void ColdStarts::copy_done(InstanceId id) {
  Inst* inst = find(id);
  if (inst == nullptr) return;
  const Time now = sim_.now();
  auto& cs = log_[inst->boot->log];
  cs.copy = now - inst->boot->stage_since;
  cs.completed = true;
  inst->boot->stage = policy::ColdStartStage::kNone;
  ready_(*inst);
}

void ColdStarts::cancel(Inst& inst) {
  if (inst.boot && inst.boot->transfer && net_.transfers != nullptr) {
    net_.transfers->cancel(*inst.boot->transfer);
  }
  for (auto it = downloads_.begin(); it != downloads_.end();) {
    auto& w = it->second->waiters;
    w.erase(std::remove(w.begin(), w.end(), inst.id), w.end());
    if (w.empty()) {
      it->second->done.cancel();
      it = downloads_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto it = chains_.begin(); it != chains_.end();) {
    Chain& c = *it->second;
    bool left = false;
    for (auto& [h, w] : c.waiters) {
      w.erase(std::remove(w.begin(), w.end(), inst.id), w.end());
      left = left || !w.empty();
    }
    if (left) {
      ++it;
      continue;
    }
    // Nobody waits any more: stop the chain (a receiver with no instance left still forwards
    // while others wait, so a chain is only cancelled as a whole).
    if (c.flow) net_.flows->cancel(*c.flow);
    c.done.cancel();
    if (!c.launched) gathering_.erase(c.key);
    it = chains_.erase(it);
  }
}

void ColdStarts::write_summary(json& out) const {
  std::uint64_t completed = 0;
  double dl = 0, rt = 0, ld = 0, cp = 0;
  std::map<std::string, std::uint64_t> sources;
  for (const auto& c : log_) {
    ++sources[policy::to_string(c.source)];
    if (!c.completed) continue;
    ++completed;
    dl += c.download.to_seconds();
    rt += c.runtime.to_seconds();
    ld += c.load.to_seconds();
    cp += c.copy.to_seconds();
  }
  const auto mean = [completed](double s) {
    return completed > 0 ? json(s / static_cast<double>(completed)) : json(nullptr);
  };
  out["instances_started"] = log_.size();
  out["cold_starts"] = {{"count", log_.size()},
                        {"completed", completed},
                        {"by_stage",
                         {{"download_s", mean(dl)},
                          {"runtime_s", mean(rt)},
                          {"load_s", mean(ld)},
                          {"copy_s", mean(cp)}}},
                        {"total_s", mean(dl + rt + ld + cp)},
                        {"sources", sources},
                        {"chained", chained_}};
  std::uint64_t launched = 0;
  json by_size = json::object();
  for (const auto& [n, count] : chain_sizes_) {
    launched += count;
    by_size[std::to_string(n)] = count;
  }
  out["cold_starts"]["chains"] = {{"launched", launched}, {"by_cold_starts", by_size}};
}

}  // namespace sim::platform::serverless
