// Flip 7 Arena: the C++ example bot.
//
// Connects to ARENA_ADDRESS with ARENA_TOKEN, says hello, then answers every DecisionRequest
// on one bidirectional stream (Arena.Play), for as many games at once as the arena runs.
// It asks for batches: every request that is ready comes in one ArenaMessage{batch} and is
// answered in one BotMessage{answers} (ARENA_BATCHES=0: one request per message). An
// exception in the strategy is reported to the arena in Answer.error. Reconnects with the
// same token when the stream breaks; exits 0 on goodbye.
//
// Synchronous gRPC API: one ClientReaderWriter per connection, one reader loop (this
// thread), writes serialised by a mutex. Choosing an answer takes microseconds, so the
// reader answers in line; a slower strategy would hand requests to worker threads and
// reply through the same guarded writer.
#include <cxxabi.h>
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <typeinfo>
#include <unordered_map>

#include "arena/v1/arena.grpc.pb.h"
#include "strategy.hpp"

namespace pb = arena::v1;
using Clock = std::chrono::steady_clock;

namespace {

constexpr const char* kBotName = "cpp-example";
constexpr const char* kBotVersion = "flip7-cpp-bot 1.0 (c++17, grpc++ sync)";
constexpr uint32_t kProtocolVersion = 1;
constexpr auto kReconnectFor = std::chrono::seconds(10);
constexpr auto kFirstDelay = std::chrono::milliseconds(50);
constexpr auto kMaxDelay = std::chrono::milliseconds(1000);

bool g_verbose = false;

template <typename... A>
void say(const char* fmt, A... args) {
  std::fprintf(stderr, "[flip7-cpp] ");
  std::fprintf(stderr, fmt, args...);
  std::fputc('\n', stderr);
  std::fflush(stderr);
}

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string(fallback);
}

const char* code_name(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK: return "OK";
    case grpc::StatusCode::CANCELLED: return "CANCELLED";
    case grpc::StatusCode::UNKNOWN: return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND: return "NOT_FOUND";
    case grpc::StatusCode::PERMISSION_DENIED: return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED: return "ABORTED";
    case grpc::StatusCode::UNIMPLEMENTED: return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL: return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE: return "UNAVAILABLE";
    case grpc::StatusCode::UNAUTHENTICATED: return "UNAUTHENTICATED";
    default: return "status";
  }
}

// "std::out_of_range: vector::_M_range_check" (the exception's type, demangled, and what()).
std::string describe(const std::exception& e) {
  const char* mangled = typeid(e).name();
  int status = 0;
  char* name = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string type = status == 0 && name ? name : mangled;
  std::free(name);
  return type + ": " + e.what();
}

// The answer to one request: flip7::choose's option, or, when it throws or returns an index
// that is not one of the options, option 0 with `error` saying what went wrong (the arena
// then records the bot's own fault, BOT_ERROR, and plays the safe default).
void decide(const pb::DecisionRequest& req, pb::Answer* answer) {
  answer->set_request_id(req.request_id());
  answer->set_option_index(0);
  int index = 0;
  try {
    index = flip7::choose(req);
  } catch (const std::exception& e) {
    answer->set_error(describe(e));
  } catch (...) {
    answer->set_error("an exception that is not a std::exception");
  }
  if (answer->error().empty()) {
    if (index >= 0 && index < req.options_size()) {
      answer->set_option_index(static_cast<uint32_t>(index));
    } else {
      answer->set_error("flip7::choose returned " + std::to_string(index) + " for " +
                        std::to_string(req.options_size()) + " options");
    }
  }
  if (!answer->error().empty())
    say("request %llu (%s): %s; reported to the arena",
        static_cast<unsigned long long>(req.request_id()),
        pb::DecisionKind_Name(req.kind()).c_str(), answer->error().c_str());
}

struct GameInfo {
  uint32_t seat = 0;
  uint32_t seats = 0;
  std::string variant;
};

enum class Outcome { Goodbye, Retry, Fatal };

using Stream = grpc::ClientReaderWriter<pb::BotMessage, pb::ArenaMessage>;

class Client {
 public:
  Client(std::string address, std::string token, bool batches)
      : address_(std::move(address)), token_(std::move(token)), batches_(batches) {}

  int run() {
    bool have_deadline = false;
    Clock::time_point give_up{};
    auto delay = std::chrono::duration_cast<std::chrono::milliseconds>(kFirstDelay);
    for (;;) {
      std::string why;
      const Outcome out = session(&why);
      if (out == Outcome::Goodbye) {
        say("goodbye (%s): %llu games, %llu answers", why.c_str(),
            static_cast<unsigned long long>(games_played_),
            static_cast<unsigned long long>(answers_));
        return 0;
      }
      if (out == Outcome::Fatal) {
        say("the arena refused this bot: %s", why.c_str());
        return 2;
      }
      const auto now = Clock::now();
      if (welcomed_) {  // that session worked: a fresh reconnect window
        have_deadline = false;
        delay = kFirstDelay;
      }
      if (!have_deadline) {
        have_deadline = true;
        give_up = now + kReconnectFor;
      }
      if (now >= give_up) {
        say("lost the arena at %s: %s", address_.c_str(), why.c_str());
        return 1;
      }
      say("stream lost (%s); reconnecting in %lld ms", why.c_str(),
          static_cast<long long>(delay.count()));
      std::this_thread::sleep_for(delay);
      delay = std::min(delay * 2, std::chrono::duration_cast<std::chrono::milliseconds>(kMaxDelay));
    }
  }

 private:
  std::shared_ptr<grpc::Channel> channel() {
    if (!channel_) {
      grpc::ChannelArguments args;
      // our own subchannel, so a new channel does not inherit an old one's back-off
      args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
      args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
      args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
      args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
      args.SetMaxReceiveMessageSize(-1);
      channel_ = grpc::CreateCustomChannel(address_, grpc::InsecureChannelCredentials(), args);
    }
    return channel_;
  }

  bool send(Stream& stream, const pb::BotMessage& msg) {
    std::lock_guard<std::mutex> lock(write_mu_);
    return stream.Write(msg);
  }

  Outcome session(std::string* why) {
    welcomed_ = false;
    auto stub = pb::Arena::NewStub(channel());
    grpc::ClientContext ctx;
    std::unique_ptr<Stream> stream = stub->Play(&ctx);

    pb::BotMessage hello_msg;
    pb::Hello* hello = hello_msg.mutable_hello();
    hello->set_token(token_);
    hello->set_bot_name(kBotName);
    hello->set_protocol_version(kProtocolVersion);
    hello->set_max_concurrent_games(0);  // as many as the arena likes
    hello->set_bot_version(std::string(kBotVersion) + ", grpc " + grpc::Version());
    hello->set_want_forced(false);
    hello->set_batches(batches_);  // every ready request in one message

    Outcome out = Outcome::Retry;
    *why = "the stream ended without a goodbye";
    bool finished = false;  // we decided to end the stream ourselves
    if (send(*stream, hello_msg)) {
      pb::ArenaMessage msg;
      while (!finished && stream->Read(&msg)) {
        switch (msg.msg_case()) {
          case pb::ArenaMessage::kBatch: {
            // every request that was ready: all answered, in one message
            pb::BotMessage reply;
            pb::Answers* answers = reply.mutable_answers();
            for (const pb::DecisionRequest& req : msg.batch().requests())
              decide(req, answers->add_answers());
            if (!send(*stream, reply)) finished = true;  // the stream is gone: Finish says why
            else answers_ += static_cast<uint64_t>(answers->answers_size());
            break;
          }
          case pb::ArenaMessage::kRequest: {
            pb::BotMessage reply;
            decide(msg.request(), reply.mutable_answer());
            if (!send(*stream, reply)) finished = true;
            else ++answers_;
            break;
          }
          case pb::ArenaMessage::kGameStart: {
            const pb::GameStart& gs = msg.game_start();
            games_[gs.game_id()] = GameInfo{gs.seat(), gs.seats(), gs.ruleset().variant()};
            if (g_verbose)
              say("game %s: seat %u of %u, %s", gs.game_id().c_str(), gs.seat(), gs.seats(),
                  gs.ruleset().variant().c_str());
            break;
          }
          case pb::ArenaMessage::kGameEnd: {
            const pb::GameEnd& ge = msg.game_end();
            if (games_.erase(ge.game_id()) > 0) ++games_played_;
            if (g_verbose) say("game %s over (%s)", ge.game_id().c_str(), ge.status().c_str());
            break;
          }
          case pb::ArenaMessage::kWelcome: {
            welcomed_ = true;
            const pb::Welcome& w = msg.welcome();
            say("welcome as %s (session %s, arena %s, batches %s)", w.bot_name().c_str(),
                w.session_id().c_str(), w.arena_version().c_str(), w.batches() ? "on" : "off");
            break;
          }
          case pb::ArenaMessage::kError: {
            const pb::Error& e = msg.error();
            *why = pb::Error_Code_Name(e.code()) + ": " + e.message();
            // ALREADY_CONNECTED: our previous stream is not yet noticed as gone; retry
            out = e.code() == pb::Error::ALREADY_CONNECTED ? Outcome::Retry : Outcome::Fatal;
            finished = true;
            break;
          }
          case pb::ArenaMessage::kGoodbye:
            *why = msg.goodbye().reason();
            out = Outcome::Goodbye;
            finished = true;
            break;
          default:
            break;  // a message kind from a newer protocol: ignore it
        }
      }
    }
    if (finished) ctx.TryCancel();
    const grpc::Status status = stream->Finish();
    if (!finished && !status.ok()) {
      *why = std::string(code_name(status.error_code())) + " " + status.error_message();
    }
    if (out == Outcome::Retry && !welcomed_) channel_.reset();  // a fresh connection next time
    return out;
  }

  std::string address_;
  std::string token_;
  bool batches_;
  std::shared_ptr<grpc::Channel> channel_;
  std::mutex write_mu_;
  std::unordered_map<std::string, GameInfo> games_;
  bool welcomed_ = false;
  uint64_t answers_ = 0;
  uint64_t games_played_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--version")) {
      std::printf("%s, grpc %s\n", kBotVersion, grpc::Version().c_str());
      return 0;
    }
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::printf(
          "usage: flip7-bot\n"
          "Flip 7 Arena example bot. The arena starts it with ARENA_ADDRESS and ARENA_TOKEN\n"
          "in the environment; ARENA_LOG=DEBUG logs every game start and end;\n"
          "ARENA_BATCHES=0 asks for one request per message instead of batches.\n");
      return 0;
    }
  }
  const std::string address = env_or("ARENA_ADDRESS", "");
  const char* token = std::getenv("ARENA_TOKEN");
  if (address.empty() || token == nullptr) {
    say("ARENA_ADDRESS and ARENA_TOKEN must be set (the arena sets them for its bots)");
    return 2;
  }
  const std::string level = env_or("ARENA_LOG", "");
  g_verbose = level == "DEBUG" || level == "debug" || level == "INFO" || level == "info";
  Client client(address, token, env_or("ARENA_BATCHES", "1") != "0");
  return client.run();
}
