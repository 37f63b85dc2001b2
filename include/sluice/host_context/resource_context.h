// A name → object map whose objects live as long as the map: the resources
// of one request. Thread-safe.
#ifndef SLUICE_HOST_CONTEXT_RESOURCE_CONTEXT_H_
#define SLUICE_HOST_CONTEXT_RESOURCE_CONTEXT_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sluice {

class ResourceContext {
 public:
  ResourceContext() = default;
  // Destroys the resources, newest first.
  ~ResourceContext();
  ResourceContext(const ResourceContext&) = delete;
  ResourceContext& operator=(const ResourceContext&) = delete;

  // The resource called `name` if it exists and is a `T`, nullptr otherwise.
  template <typename T>
  T* GetResource(std::string_view name) {
    std::lock_guard<std::mutex> lock(mu_);
    Resource* resource = Find(name);
    if (resource == nullptr || resource->type != &kTypeKey<T>) return nullptr;
    return static_cast<T*>(resource->object);
  }

  // The resource called `name`, created with `factory()` (returning a
  // std::unique_ptr<T>) if absent. Returns nullptr if a resource of another
  // type has that name. The factory runs under the map's lock: it must not
  // use this map.
  template <typename T, typename Factory>
  T* GetOrCreateResource(std::string_view name, Factory factory) {
    std::lock_guard<std::mutex> lock(mu_);
    if (Resource* resource = Find(name)) {
      return resource->type == &kTypeKey<T> ? static_cast<T*>(resource->object)
                                            : nullptr;
    }
    std::unique_ptr<T> object = factory();
    T* raw = object.release();
    resources_.push_back(Resource{std::string(name), &kTypeKey<T>, raw,
                                  [](void* p) { delete static_cast<T*>(p); }});
    return raw;
  }

  size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return resources_.size();
  }

 private:
  struct Resource {
    std::string name;
    const void* type;
    void* object;
    void (*destroy)(void*);
  };

  template <typename T>
  static constexpr char kTypeKey = 0;

  Resource* Find(std::string_view name);

  mutable std::mutex mu_;
  std::vector<Resource> resources_;  // in creation order
};

}  // namespace sluice

#endif  // SLUICE_HOST_CONTEXT_RESOURCE_CONTEXT_H_
