#include "hook/runner.hpp"
#include "hooks/on_stop/on_stop.hpp"

int main() { return mem0::run_hook("on_stop", mem0::parse_stop_input, mem0::on_stop::handle); }
