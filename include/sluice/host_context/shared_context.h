// Objects shared by everything on one HostContext: one instance per C++
// type, created on first use, destroyed with the HostContext (after its
// queued work has run, before its work queue) in reverse order of creation.
#ifndef SLUICE_HOST_CONTEXT_SHARED_CONTEXT_H_
#define SLUICE_HOST_CONTEXT_SHARED_CONTEXT_H_

#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

namespace sluice {

class HostContext;

class SharedContextRegistry {
 public:
  explicit SharedContextRegistry(HostContext* host) : host_(host) {}
  ~SharedContextRegistry();

  // Destroys every instance, newest first.
  void Clear();
  SharedContextRegistry(const SharedContextRegistry&) = delete;
  SharedContextRegistry& operator=(const SharedContextRegistry&) = delete;

  // The instance of `T` for this host, built with T(HostContext*) if T has
  // such a constructor, T() otherwise. Thread-safe.
  template <typename T>
  T& GetOrCreate() {
    return *static_cast<T*>(GetOrCreate(&kTypeKey<T>, [this]() -> Entry {
      T* object;
      if constexpr (std::is_constructible_v<T, HostContext*>) {
        object = new T(host_);
      } else {
        object = new T();
      }
      return Entry{&kTypeKey<T>, object,
                   [](void* p) { delete static_cast<T*>(p); }};
    }));
  }

 private:
  struct Entry {
    const void* key;
    void* object;
    void (*destroy)(void*);
  };

  template <typename T>
  static constexpr char kTypeKey = 0;

  template <typename Factory>
  void* GetOrCreate(const void* key, Factory factory) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const Entry& entry : entries_) {
      if (entry.key == key) return entry.object;
    }
    entries_.push_back(factory());
    return entries_.back().object;
  }

  HostContext* const host_;
  std::mutex mu_;
  std::vector<Entry> entries_;  // in creation order; few per host
};

}  // namespace sluice

#endif  // SLUICE_HOST_CONTEXT_SHARED_CONTEXT_H_
