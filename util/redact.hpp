#pragma once
#include <string>
#include <string_view>

namespace mem0 {

// Replace secrets (API keys and tokens of the forms in docs/failures.md#redacted-forms, JWTs, PEM
// private-key blocks, the password of a URL's `user:pass@`, `Bearer` values and the values of
// `password=`/`secret=`/`token=`/`api_key=` style assignments) by `[REDACTED]`. Linear in the
// size of `text`.
std::string redact_secrets(std::string_view text);

} // namespace mem0
