// SHA-256 (used for the `remote:<sha256[:16]>` project-map key, docs/configuration.md#project-id).
#include "tests/unit/catch.hpp"
#include "util/sha256.hpp"

#include <string>
#include <vector>

using namespace mem0;

TEST_CASE("sha256_hex NIST vectors") {
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(sha256_hex(
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklm"
            "nopqrlmnopqrsmnopqrstnopqrstu") ==
        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

TEST_CASE("sha256_hex of one million a") {
  CHECK(sha256_hex(std::string(1000000, 'a')) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("sha256_hex around the padding boundaries") {
  // Lengths where the length field does or does not fit in the last block.
  struct Case {
    std::size_t length;
    const char *digest;
  };
  const std::vector<Case> cases = {
      {55, "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072"},
      {56, "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e"},
      {63, "75220b47218278e656f2013bb8f0c455a25eaf01e86c64924e9d48d89776d6f2"},
      {64, "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c"},
      {65, "9537c5fdf120482f7d58d25e9ed583f52c02b4e304ea814db1633ad565aed7e9"},
      {119, "000b48d4edf0fa7bee3c6236ecd2785baa5db4eeb8bb54341b029e0d9fa5fb0c"},
      {120, "13f05a0b594787f5ecd315edc96141bd3243203d1b7d4f0836f37308b276ba98"},
  };
  for (const auto &c : cases) {
    INFO("length " << c.length);
    CHECK(sha256_hex(std::string(c.length, 'x')) == c.digest);
  }
}

TEST_CASE("sha256_hex hashes binary data including NUL and high bytes") {
  const std::string data("\x00\xff\x80\x7f binary", 11);
  CHECK(sha256_hex(data) == "b438550afd9608aaa538b71d8914b57d75fa4ffc0624418bfd78628a6759e19b");
}

TEST_CASE("sha256_hex returns 64 lower-case hex digits") {
  const std::string digest = sha256_hex("git@github.com:mem0ai/mem0.git");
  REQUIRE(digest.size() == 64);
  for (char c : digest)
    CHECK(((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')));
  CHECK(digest == "640e8058f899fcda4905f98944cb97f945ed3572fcb81361d06825daae1c5aa7");
}
