#include "tests/unit/catch.hpp"

#include "hygiene/use_signal.hpp"
#include "hygiene/words.hpp"

using namespace mem0;
using namespace mem0::hygiene;

TEST_CASE("words: lower-cased runs of letters and digits; punctuation and spaces separate") {
  CHECK(words_of("Use PostgreSQL-15, not  MySQL!") ==
        std::vector<std::string>{"use", "postgresql", "15", "not", "mysql"});
  CHECK(normalised("  Use pnpm;\tNOT npm. ") == "use pnpm not npm");
  CHECK(words_of("") == std::vector<std::string>{});
  CHECK(words_of("caf\xC3\xA9 au lait") == std::vector<std::string>{"caf\xC3\xA9", "au", "lait"});
}

TEST_CASE("words: distinctive means 4 letters or more and not a stop word") {
  CHECK(is_distinctive("postgresql"));
  CHECK(is_distinctive("caf\xC3\xA9")); // 4 code points
  CHECK_FALSE(is_distinctive("npm"));
  CHECK_FALSE(is_distinctive("with"));
  CHECK_FALSE(is_distinctive("should"));
  CHECK(is_stop_word("the"));
  CHECK_FALSE(is_stop_word("billing"));
}

namespace {
const std::string k_id = "3f2a9c1e-1111-4222-8333-944455556666";
const std::string k_text =
    "The billing worker retries failed invoice uploads three times with exponential backoff";
std::vector<AwaitingReply> one() { return {{k_id, k_text}}; }
} // namespace

TEST_CASE("use signal: a citation of the memory's id8 marks it used") {
  CHECK(used_ids("As noted in [mem0:3f2a9c1e], done.", one()) == std::vector<std::string>{k_id});
  CHECK(used_ids("See MEM0:3F2A9C1E.", one()) == std::vector<std::string>{k_id});
  CHECK(used_ids("mem0:3f2a9c1f is another one", one()).empty());
}

TEST_CASE("use signal: six words in a row shared with the memory mark it used, five do not") {
  // None of the run's words is distinctive: only the run can mark it.
  const std::vector<AwaitingReply> injected{
      {"eeeeeeee-0000", "When you are done with it, reviewers merge pull requests, tag releases, "
                        "publish packages, announce changes and update dashboards"}};
  CHECK(used_ids("when you are done with it, ping me", injected) ==
        std::vector<std::string>{"eeeeeeee-0000"});
  CHECK(used_ids("you are done with it, ping me", injected).empty());
}

TEST_CASE("use signal: 40 % of the memory's distinctive words mark it used") {
  // Distinctive: billing worker retries failed invoice uploads three times exponential backoff
  // (10); this reply holds billing, invoice, uploads, backoff (4 = 40 %), not in a row.
  CHECK(used_ids("For billing, each invoice is now in uploads/ and backoff is off.", one()) ==
        std::vector<std::string>{k_id});
  // Three of ten is under 40 %.
  CHECK(used_ids("For billing, each invoice is now in uploads/.", one()).empty());
  // Stop words and short words do not count, however many.
  CHECK(used_ids("the with that this have been from when what which", one()).empty());
}

TEST_CASE("use signal: an unrelated reply, an empty one or nothing injected uses nothing") {
  CHECK(used_ids("I renamed the CSS classes of the login page.", one()).empty());
  CHECK(used_ids("", one()).empty());
  CHECK(used_ids("   \n", one()).empty());
  CHECK(used_ids("anything at all", {}).empty());
}

TEST_CASE("use signal: several memories, each id once, in their order") {
  const std::vector<AwaitingReply> injected{
      {"aaaaaaaa-0000", "Use pnpm for every install in this repository"},
      {"bbbbbbbb-0000", "Deploy the docs with GitHub Pages from the docs folder"},
      {"aaaaaaaa-0000", "Use pnpm for every install in this repository"},
      {"cccccccc-0000", "Never commit generated protobuf files"}};
  CHECK(used_ids("Installed with pnpm as usual [mem0:cccccccc]; every install in this repository "
                 "goes through it.",
                 injected) == std::vector<std::string>{"aaaaaaaa-0000", "cccccccc-0000"});
}

TEST_CASE("use signal: a memory without distinctive words is used only by citation or a run") {
  const std::vector<AwaitingReply> injected{{"dddddddd-0000", "use it as is"}};
  CHECK(used_ids("use it as is", injected).empty()); // 4 words: no run of 6, none distinctive
  CHECK(used_ids("mem0:dddddddd", injected) == std::vector<std::string>{"dddddddd-0000"});
}
