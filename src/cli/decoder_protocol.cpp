#include "decoder_protocol.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace imghist::cli::protocol {

bool send_message(int socket, const std::vector<char>& bytes, int fd_to_pass) {
    iovec iov{const_cast<char*>(bytes.data()), bytes.size()};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    if (fd_to_pass >= 0) {
        msg.msg_control = control;
        msg.msg_controllen = sizeof control;
        cmsghdr* c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        std::memcpy(CMSG_DATA(c), &fd_to_pass, sizeof(int));
    }
    for (;;) {
        if (::sendmsg(socket, &msg, MSG_NOSIGNAL) >= 0) return true;
        if (errno != EINTR) return false;
    }
}

ssize_t receive_message(int socket, std::vector<char>& buffer, int& fd_passed) {
    fd_passed = -1;
    buffer.resize(kMaxMessage);
    iovec iov{buffer.data(), buffer.size()};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t n;
    do n = ::recvmsg(socket, &msg, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); n >= 0 && c; c = CMSG_NXTHDR(&msg, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(sizeof(int)))
            std::memcpy(&fd_passed, CMSG_DATA(c), sizeof(int));
    if (n > 0 && (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
        if (fd_passed >= 0) ::close(fd_passed);
        fd_passed = -1;
        errno = EMSGSIZE;
        return -1;
    }
    return n;
}

}  // namespace imghist::cli::protocol
