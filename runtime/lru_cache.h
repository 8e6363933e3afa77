// A thread-safe cache of shared immutable objects by string key, holding at most `capacity`
// entries and evicting the least recently used. Plans per input-shape signature and tile programs
// per node shape live in these: a decoding loop meets a new signature every step, so neither may
// grow without bound.
#pragma once

#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

namespace asc {

template <typename T>
class LruCache {
 public:
  explicit LruCache(size_t capacity) : capacity_(capacity < 1 ? 1 : capacity) {}

  // The entry for key (now the most recently used), or null.
  std::shared_ptr<const T> find(const std::string& key) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = map_.find(key);
    if (it == map_.end()) return nullptr;
    order_.splice(order_.begin(), order_, it->second);
    return it->second->second;
  }

  // Inserts value unless key is present; returns the entry kept for key.
  std::shared_ptr<const T> insert(const std::string& key, std::shared_ptr<const T> value) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = map_.find(key);
    if (it != map_.end()) return it->second->second;
    order_.emplace_front(key, std::move(value));
    map_.emplace(key, order_.begin());
    if (map_.size() > capacity_) {
      map_.erase(order_.back().first);
      order_.pop_back();
    }
    return order_.front().second;
  }

  // The most recently used entry, or null when empty (it stays where it is in the order).
  std::shared_ptr<const T> most_recent() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return order_.empty() ? nullptr : order_.front().second;
  }

  size_t size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return map_.size();
  }
  size_t capacity() const { return capacity_; }

 private:
  using Entry = std::pair<std::string, std::shared_ptr<const T>>;
  size_t capacity_;
  mutable std::mutex mutex_;
  mutable std::list<Entry> order_;  // most recently used first
  mutable std::unordered_map<std::string, typename std::list<Entry>::iterator> map_;
};

}  // namespace asc
