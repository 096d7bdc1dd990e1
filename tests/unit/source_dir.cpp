// The checkout's root (tests/unit/test_support.hpp): the one file compiled with it.
namespace mem0::testing {

extern const char *const k_source_dir;
const char *const k_source_dir = MEM0_SOURCE_DIR;

} // namespace mem0::testing
