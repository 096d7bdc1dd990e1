#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace mem0 {

// The prompt detectors (docs/hooks.md#prompt-detectors); none touches the network.

// True for `Traceback`/`panic:` anywhere, a line starting with `fatal: `, or two or more lines
// containing `Error:`, `Exception:` or `FAIL:`.
bool detect_error(std::string_view text);

// The error detector for command output (docs/hooks.md#bash-output-hook): detect_error, or a
// Rust error code `error[E<digits>]`, or `FATAL:` anywhere (case-sensitive).
bool detect_output_error(std::string_view text);

// The most telling error line of command output, trimmed of whitespace; empty when `text` has no
// line that is not blank. In this order:
// 1. after the last line holding `Traceback`, the first exception line: a line not indented
//    (or behind pytest's `E ` marker, which is dropped) that starts with a dotted name whose last
//    part begins with an upper-case letter, followed by `:` or the end of the line
//    (`ValueError: bad`, `requests.exceptions.HTTPError: 404`, `KeyboardInterrupt`);
// 2. the first line holding `error[E<digits>]`, `panic:` or `FATAL:`, or starting with `fatal: `;
// 3. the last line holding `Error:`, `Exception:` or `FAIL:`;
// 4. the last line that is not blank.
std::string_view telling_error_line(std::string_view text);

// Up to `max` distinct source-file paths (`dir/name.ext` with a known extension), in order.
std::vector<std::string> detect_paths(std::string_view text, std::size_t max = 5);

// The error names in `text` (`KeyError`, `NullPointerException`, `panic`, `Traceback`), distinct,
// at most five, joined by spaces; empty when it names none.
std::string error_keywords(std::string_view text);

// True when the user asks to resume earlier work ("where did we leave off", ...).
bool detect_resume(std::string_view text);

// True when the user asks to remember something ("remember this", ...).
bool detect_remember(std::string_view text);

// Expand a pattern with `(a|b)` groups and optional `(x )?` groups into its literal variants.
std::vector<std::string> expand_pattern(std::string_view pattern);

} // namespace mem0
