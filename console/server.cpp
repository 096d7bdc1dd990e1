// The console on 127.0.0.1 through Boost.Beast (docs/console.md#start): one thread, one
// io_context; each request is answered in turn.
#include "console/server.hpp"
#include "util/detach.hpp"
#include "util/json.hpp"
#include "util/json_writer.hpp"
#include "util/platform.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <atomic>
#include <csignal>
#include <memory>
#include <thread>

namespace mem0::console {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

std::filesystem::path instance_file(const RunDeps &deps) { return deps.state.dir / "console.json"; }

Request request_of(const http::request<http::string_body> &in) {
  Request out;
  out.method = std::string(in.method_string());
  const std::string target(in.target());
  const auto question = target.find('?');
  out.path = percent_decoded(target.substr(0, question));
  if (question != std::string::npos) out.query = query_params(target.substr(question + 1));
  for (const auto &field : in) {
    std::string name(field.name_string());
    for (char &c : name)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out.headers.emplace(std::move(name), std::string(field.value()));
  }
  out.body = in.body();
  return out;
}

// One connection: read a request, answer it, again while the client keeps it alive; a request
// that takes longer than 30 s to arrive ends it.
class Connection : public std::enable_shared_from_this<Connection> {
public:
  Connection(tcp::socket socket, Console &console, Clock::time_point &last)
      : m_stream(std::move(socket)), m_console(console), m_last(last) {}

  void read() {
    m_request = {};
    m_parser.emplace();
    m_parser->body_limit(1 << 20);
    m_stream.expires_after(std::chrono::seconds(30));
    http::async_read(
        m_stream, m_buffer, *m_parser,
        [self = shared_from_this()](beast::error_code ec, std::size_t) { self->answer(ec); });
  }

private:
  void answer(beast::error_code ec) {
    if (ec) return close();
    m_last = Clock::now();
    m_request = m_parser->release();
    const Response out = m_console.handle(request_of(m_request));
    auto res = std::make_shared<http::response<http::string_body>>(
        static_cast<http::status>(out.status), m_request.version());
    res->set(http::field::server, "mem0-hooks");
    res->set(http::field::content_type, out.content_type);
    for (const auto &[k, v] : out.headers)
      res->set(k, v);
    res->keep_alive(m_request.keep_alive());
    if (m_request.method() != http::verb::head) res->body() = out.body;
    res->prepare_payload();
    http::async_write(m_stream, *res,
                      [self = shared_from_this(), res](beast::error_code wec, std::size_t) {
                        if (wec || !res->keep_alive()) return self->close();
                        self->read();
                      });
  }
  void close() {
    beast::error_code ignored;
    m_stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  }

  beast::tcp_stream m_stream;
  beast::flat_buffer m_buffer;
  std::optional<http::request_parser<http::string_body>> m_parser;
  http::request<http::string_body> m_request;
  Console &m_console;
  Clock::time_point &m_last;
};

void accept(tcp::acceptor &acceptor, Console &console, Clock::time_point &last) {
  acceptor.async_accept([&](beast::error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted) return;
    if (!ec) std::make_shared<Connection>(std::move(socket), console, last)->read();
    accept(acceptor, console, last);
  });
}

} // namespace

std::string console_url(int port, const std::string &token) {
  return "http://127.0.0.1:" + std::to_string(port) + "/?token=" + token;
}

std::string running_console(const RunDeps &deps) {
  const auto text = deps.state.disk->read(instance_file(deps), 4096);
  rapidjson::Document doc;
  if (!text || !parse_json(doc, *text) || !doc.IsObject()) return {};
  const auto port = int64_member(doc, "port");
  const auto token = string_member(doc, "token");
  if (!port || !token || *port <= 0 || *port > 65535) return {};
  // A ping with its token, answered within 2 s.
  asio::io_context io;
  beast::tcp_stream stream(io);
  http::response<http::string_body> answer;
  beast::flat_buffer buffer;
  http::request<http::empty_body> ping(http::verb::get, "/api/ping", 11);
  ping.set(http::field::host, "127.0.0.1:" + std::to_string(*port));
  ping.set(http::field::authorization, "Bearer " + std::string(*token));
  bool answered = false;
  stream.expires_after(std::chrono::seconds(2));
  stream.async_connect(
      tcp::endpoint(asio::ip::make_address_v4("127.0.0.1"), static_cast<unsigned short>(*port)),
      [&](beast::error_code ec) {
        if (ec) return;
        http::async_write(stream, ping, [&](beast::error_code wec, std::size_t) {
          if (wec) return;
          http::async_read(stream, buffer, answer,
                           [&](beast::error_code rec, std::size_t) { answered = !rec; });
        });
      });
  io.run();
  if (!answered || answer.result_int() != 200 ||
      answer.body().find("\"mem0\"") == std::string::npos)
    return {};
  return console_url(static_cast<int>(*port), std::string(*token));
}

int serve(Console &console, const RunDeps &deps, const ServeOptions &options, std::ostream &out,
          std::ostream &err) {
  asio::io_context io;
  tcp::acceptor acceptor(io);
  beast::error_code ec;
  const tcp::endpoint want(asio::ip::make_address_v4("127.0.0.1"),
                           static_cast<unsigned short>(options.port));
  acceptor.open(want.protocol(), ec);
  if (!ec) acceptor.bind(want, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    err << "mem0-hooks ui: cannot listen on 127.0.0.1"
        << (options.port > 0 ? ":" + std::to_string(options.port) : std::string()) << ": "
        << ec.message() << "\n";
    return 1;
  }
  const int port = acceptor.local_endpoint().port();
  console.set_port(port);
  const std::string url = console_url(port, console.options().token);
  // Where another ui finds this one, and which process serves it.
  const auto save_instance = [&] {
    JsonWriter w;
    w.begin_object()
        .key("port")
        .int64(port)
        .member("token", console.options().token)
        .key("pid")
        .int64(platform::process_id())
        .end_object();
    if (auto saved = deps.state.disk->make_dir(deps.state.dir); saved)
      if (auto written =
              deps.state.disk->write(instance_file(deps), w.text(), Durability::saves_work);
          !written)
        err << "mem0-hooks ui: " << written.error().message
            << " (another ui will not find this one)\n";
  };
  // Printed once another ui can find this one.
  const auto announce = [&] {
    out << "mem0 console: " << url << std::endl;
    if (options.open && !open_browser(url))
      err << "mem0-hooks ui: could not open a browser; open the address above\n";
    out << (options.background ? "Serving in the background until "
                               : "Serving until Ctrl-C, or until ")
        << options.idle.count() / 60 << " minutes pass without a request.\n"
        << std::flush;
  };
  deps.state.disk->remove(instance_file(deps)); // a console's that no longer answers

  bool stopped_by_signal = false;
  // Ctrl-C and SIGTERM are caught from before the address is printed.
  asio::signal_set signals(io, SIGINT, SIGTERM);
  const auto loop = [&] {
    // The detached process has the acceptor, and the io_context's own descriptors anew.
    if (options.background) {
      io.notify_fork(asio::io_context::fork_child);
      save_instance();
    }
    Clock::time_point last = Clock::now();
    accept(acceptor, console, last);
    signals.async_wait([&](beast::error_code sec, int) {
      if (sec) return;
      stopped_by_signal = true;
      io.stop();
    });
    asio::steady_timer idle(io);
    std::function<void()> check = [&] {
      idle.expires_after(std::chrono::seconds(1));
      idle.async_wait([&](beast::error_code iec) {
        if (iec) return;
        if (Clock::now() - last > options.idle) return io.stop();
        check();
      });
    };
    check();
    io.run();
    deps.state.disk->remove(instance_file(deps));
    out << "mem0 console: stopped" << (stopped_by_signal ? "" : " after an idle spell") << "\n";
  };
  if (!options.background) {
    save_instance();
    announce();
    loop();
    return 0;
  }
#ifdef _WIN32
  err << "mem0-hooks ui: --background needs a system that can fork; run mem0-hooks ui in a "
         "terminal of its own\n";
  return 1;
#else
  // The detached process inherits the bound socket (util/detach.hpp).
  if (auto started = run_detached(DetachedWork{{}, loop, {}}); !started) {
    err << "mem0-hooks ui: " << started.error().message << "\n";
    return 1;
  }
  // The detached process says where it is (and which process it is) first.
  for (int i = 0; i < 100 && !deps.state.disk->exists(instance_file(deps)); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  announce();
  return 0;
#endif
}

} // namespace mem0::console
