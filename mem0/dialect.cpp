#include "mem0/dialect.hpp"

namespace mem0 {

// The one place that maps a backend to its dialect; a new backend adds its line here.
const Dialect &dialect_for(Backend backend) {
  switch (backend) {
  case Backend::platform: return platform_dialect();
  case Backend::selfhosted: return selfhosted_dialect();
  }
  return platform_dialect();
}

} // namespace mem0
