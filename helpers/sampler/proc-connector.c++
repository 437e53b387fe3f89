#include "helpers/sampler/proc-connector.h"

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <kj/debug.h>

#include "helpers/common/clock.h"

namespace rea::helper {
namespace {

// 8 MiB of queue: a build on the machine forks hundreds of processes a second, and each event
// costs about 1 KiB of socket memory; the target's own events must not be crowded out.
constexpr int RECEIVE_BUFFER_BYTES = 8 << 20;
constexpr size_t DATAGRAM_BYTES = 64 << 10;
constexpr int MAX_DATAGRAMS_PER_READ = 4096;

// The inode numbers of the initial namespaces (include/linux/proc_ns.h: PROC_USER_INIT_INO,
// PROC_PID_INIT_INO); nsfs gives every namespace file its namespace's number.
constexpr ino_t INITIAL_USER_NAMESPACE_INODE = 0xEFFFFFFDU;
constexpr ino_t INITIAL_PID_NAMESPACE_INODE = 0xEFFFFFFCU;

bool isNamespace(const char* path, ino_t initialInode) {
  struct stat info;
  // Unreadable (no /proc): assume the initial one; the acknowledgement wait still decides.
  return stat(path, &info) != 0 || info.st_ino == initialInode;
}

template <typename T>
T load(const kj::byte* at) {
  T value;
  memcpy(&value, at, sizeof(T));
  return value;
}

}  // namespace

kj::Maybe<int> findAcknowledgement(kj::ArrayPtr<const kj::byte> datagram, uint32_t ack) {
  size_t offset = 0;
  while (offset + sizeof(nlmsghdr) <= datagram.size()) {
    auto header = load<nlmsghdr>(datagram.begin() + offset);
    if (header.nlmsg_len < NLMSG_HDRLEN || header.nlmsg_len > datagram.size() - offset) break;
    const kj::byte* payload = datagram.begin() + offset + NLMSG_HDRLEN;
    size_t payloadSize = header.nlmsg_len - NLMSG_HDRLEN;
    offset += NLMSG_ALIGN(header.nlmsg_len);
    if (payloadSize < sizeof(cn_msg) + sizeof(proc_event)) continue;
    auto message = load<cn_msg>(payload);
    if (message.id.idx != CN_IDX_PROC || message.id.val != CN_VAL_PROC || message.ack != ack) {
      continue;
    }
    auto event = load<proc_event>(payload + sizeof(cn_msg));
    if (event.what != proc_event::PROC_EVENT_NONE) continue;
    return static_cast<int>(event.event_data.ack.err);
  }
  return nullptr;
}

void decodeProcEvents(kj::ArrayPtr<const kj::byte> datagram, std::vector<ProcEvent>& out) {
  size_t offset = 0;
  while (offset + sizeof(nlmsghdr) <= datagram.size()) {
    auto header = load<nlmsghdr>(datagram.begin() + offset);
    if (header.nlmsg_len < sizeof(nlmsghdr) || header.nlmsg_len > datagram.size() - offset) break;
    const kj::byte* payload = datagram.begin() + offset + NLMSG_HDRLEN;
    size_t payloadSize = header.nlmsg_len > NLMSG_HDRLEN ? header.nlmsg_len - NLMSG_HDRLEN : 0;
    offset += NLMSG_ALIGN(header.nlmsg_len);
    if (header.nlmsg_type == NLMSG_NOOP || header.nlmsg_type == NLMSG_ERROR) continue;
    if (payloadSize < sizeof(cn_msg)) continue;
    auto message = load<cn_msg>(payload);
    if (message.id.idx != CN_IDX_PROC || message.id.val != CN_VAL_PROC) continue;
    if (message.len < sizeof(proc_event) || message.len > payloadSize - sizeof(cn_msg)) continue;
    auto event = load<proc_event>(payload + sizeof(cn_msg));
    ProcEvent decoded{ProcEvent::FORK, event.timestamp_ns, 0, 0, 0};
    switch (event.what) {
      case proc_event::PROC_EVENT_FORK: {
        auto& fork = event.event_data.fork;
        if (fork.child_pid != fork.child_tgid) continue;  // a new thread, not a process
        decoded.kind = ProcEvent::FORK;
        decoded.pid = fork.child_tgid;
        decoded.parentPid = fork.parent_tgid;
        break;
      }
      case proc_event::PROC_EVENT_EXEC:
        decoded.kind = ProcEvent::EXEC;
        decoded.pid = event.event_data.exec.process_tgid;
        break;
      case proc_event::PROC_EVENT_EXIT: {
        auto& exit = event.event_data.exit;
        if (exit.process_pid != exit.process_tgid) continue;  // a thread ended
        decoded.kind = ProcEvent::EXIT;
        decoded.pid = exit.process_tgid;
        decoded.parentPid = exit.parent_tgid;
        decoded.exitStatus = static_cast<int>(exit.exit_code);
        break;
      }
      case proc_event::PROC_EVENT_SID:
        decoded.kind = ProcEvent::SID;
        decoded.pid = event.event_data.sid.process_tgid;
        break;
      default:
        continue;  // acks, uid/gid/ptrace/comm/coredump changes: not part of a sample
    }
    if (decoded.pid <= 0) continue;
    out.push_back(decoded);
  }
}

kj::OneOf<kj::Own<ProcConnector>, std::string> ProcConnector::subscribe() {
  kj::OneOf<kj::Own<ProcConnector>, std::string> result;
  // The kernel reports process events relative to the initial namespaces and silently ignores a
  // subscription from any other (cn_proc_mcast_ctl: no acknowledgement at all), so inside a
  // container the wait below would only end at its deadline.
  if (!isNamespace("/proc/self/ns/user", INITIAL_USER_NAMESPACE_INODE) ||
      !isNamespace("/proc/self/ns/pid", INITIAL_PID_NAMESPACE_INODE)) {
    result = std::string(
        "the proc connector serves only the initial PID and user namespaces, not this one");
    return result;
  }
  int fd = ::socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_CONNECTOR);
  if (fd < 0) {
    result = std::string("netlink connector socket failed: ") + strerror(errno);
    return result;
  }
  kj::AutoCloseFd owned(fd);
  if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &RECEIVE_BUFFER_BYTES,
                 sizeof(RECEIVE_BUFFER_BYTES)) != 0) {
    // Without CAP_NET_ADMIN only the sysctl-capped size (net.core.rmem_max) is possible.
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &RECEIVE_BUFFER_BYTES, sizeof(RECEIVE_BUFFER_BYTES));
  }
  sockaddr_nl address{};
  address.nl_family = AF_NETLINK;
  address.nl_groups = CN_IDX_PROC;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    result = std::string("cannot bind to the proc connector: ") + strerror(errno);
    return result;
  }
  auto connector = kj::heap<ProcConnector>(kj::mv(owned));
  uint32_t ack = 0;
  while (ack == 0) {
    KJ_SYSCALL(getrandom(&ack, sizeof(ack), 0));
  }
  KJ_IF_MAYBE (problem, connector->subscribeAcknowledged(ack)) {
    // Nothing was subscribed, so the destructor must not unsubscribe either.
    connector->subscribed = false;
    result = kj::mv(*problem);
    return result;
  }
  result = kj::mv(connector);
  return result;
}

ProcConnector::ProcConnector(kj::AutoCloseFd socket)
    : socket(kj::mv(socket)), buffer(kj::heapArray<kj::byte>(DATAGRAM_BYTES)) {}

ProcConnector::~ProcConnector() noexcept(false) {
  // The kernel counts listeners and keeps generating events while any is registered.
  if (subscribed) sendControl(PROC_CN_MCAST_IGNORE);
}

kj::Maybe<std::string> ProcConnector::subscribeAcknowledged(uint32_t ack) {
  KJ_IF_MAYBE (exception,
               kj::runCatchingExceptions([&]() { sendControl(PROC_CN_MCAST_LISTEN, ack); })) {
    return std::string("proc connector subscription refused: ") +
           exception->getDescription().cStr();
  }
  // The kernel answers every control message with an acknowledgement multicast to all
  // listeners (ack field = ours + 1) carrying the errno: before Linux 6.6 listening needed
  // CAP_NET_ADMIN and a refusal is only visible here, not as a send() error. Everything else
  // read meanwhile predates the target and is dropped.
  uint64_t deadline = monotonicNowNs() + 1000000000u;
  for (;;) {
    uint64_t now = monotonicNowNs();
    if (now >= deadline)
      return std::string("the proc connector did not acknowledge the subscription");
    struct pollfd pending = {socket.get(), POLLIN, 0};
    int ready;
    KJ_SYSCALL(ready = poll(&pending, 1, static_cast<int>((deadline - now) / 1000000 + 1)));
    if (ready == 0) continue;
    ssize_t n;
    KJ_SYSCALL_HANDLE_ERRORS(n = recv(socket.get(), buffer.begin(), buffer.size(), 0)) {
      case EAGAIN:
      case ENOBUFS:
        continue;
      default:
        KJ_FAIL_SYSCALL("recv(proc connector)", error);
    }
    KJ_IF_MAYBE (error,
                 findAcknowledgement(buffer.slice(0, static_cast<size_t>(n)).asConst(), ack + 1)) {
      if (*error == 0) return nullptr;
      return std::string("proc connector subscription refused: ") + strerror(*error);
    }
  }
}

void ProcConnector::sendControl(int operation, uint32_t ack) {
  alignas(nlmsghdr) kj::byte message[NLMSG_SPACE(sizeof(cn_msg) + sizeof(proc_cn_mcast_op))] = {};
  auto* header = reinterpret_cast<nlmsghdr*>(message);
  header->nlmsg_len = NLMSG_LENGTH(sizeof(cn_msg) + sizeof(proc_cn_mcast_op));
  header->nlmsg_type = NLMSG_DONE;
  header->nlmsg_pid = 0;
  cn_msg connector{};
  connector.id.idx = CN_IDX_PROC;
  connector.id.val = CN_VAL_PROC;
  connector.len = sizeof(proc_cn_mcast_op);
  connector.ack = ack;
  auto op = static_cast<proc_cn_mcast_op>(operation);
  memcpy(message + NLMSG_HDRLEN, &connector, sizeof(connector));
  memcpy(message + NLMSG_HDRLEN + sizeof(cn_msg), &op, sizeof(op));
  KJ_SYSCALL(send(socket.get(), message, header->nlmsg_len, 0), "proc connector control",
             operation);
}

bool ProcConnector::readAvailable(std::vector<ProcEvent>& out) {
  for (int i = 0; i < MAX_DATAGRAMS_PER_READ; ++i) {
    sockaddr_nl from{};
    socklen_t fromLength = sizeof(from);
    ssize_t n;
    KJ_SYSCALL_HANDLE_ERRORS(n = recvfrom(socket.get(), buffer.begin(), buffer.size(), 0,
                                          reinterpret_cast<sockaddr*>(&from), &fromLength)) {
      case EAGAIN:
        return true;
      case ENOBUFS:
        out.push_back(ProcEvent{ProcEvent::OVERRUN, monotonicNowNs(), 0, 0, 0});
        continue;
      default:
        KJ_FAIL_SYSCALL("recvfrom(proc connector)", error);
    }
    if (from.nl_pid != 0) continue;  // only the kernel speaks on this group
    decodeProcEvents(buffer.slice(0, static_cast<size_t>(n)).asConst(), out);
  }
  return false;
}

}  // namespace rea::helper
