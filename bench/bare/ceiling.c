// The bench's reference row: the least an HTTP server can do per request, in C on one epoll thread. It reads each
// request (headers, then Content-Length bytes of body) and answers a fixed JSON-RPC reply, nothing else. It shows
// what one thread costs the loopback and wrk here; it is not a bound on every server: at 2 connections a server that
// serves each connection on its own thread (Anvil's tokio) has answered faster. Built by the bench with `cc -O2`
// (every machine kind has gcc); not part of the node.
// Usage: ceiling <port>
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define BUF_BYTES 65536
#define MAX_EVENTS 64

static const char BODY[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"0x1\"}";
static char reply[256];
static size_t reply_len;

struct conn {
  int fd;
  size_t len;
  char buf[BUF_BYTES];
};

// Content-Length of the request whose headers are buf[0, head); 0 when absent.
static long content_length(const char *buf, size_t head) {
  static const char key[] = "\r\ncontent-length:";
  for (size_t i = 0; i + sizeof key - 1 < head; i++)
    if (strncasecmp(buf + i, key, sizeof key - 1) == 0) return atol(buf + i + sizeof key - 1);
  return 0;
}

static int write_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (w <= 0) return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

// Answers every whole request in the buffer; -1 when the connection must close.
static int serve(struct conn *c) {
  char out[BUF_BYTES];
  size_t out_len = 0;
  for (;;) {
    char *end = memmem(c->buf, c->len, "\r\n\r\n", 4);
    if (end == NULL) break;
    size_t head = (size_t)(end - c->buf) + 4;
    long body = content_length(c->buf, head);
    if (body < 0 || head + (size_t)body > BUF_BYTES) return -1;
    if (head + (size_t)body > c->len) break;
    if (out_len + reply_len > sizeof out) {
      if (write_all(c->fd, out, out_len) < 0) return -1;
      out_len = 0;
    }
    memcpy(out + out_len, reply, reply_len);
    out_len += reply_len;
    c->len -= head + (size_t)body;
    memmove(c->buf, c->buf + head + (size_t)body, c->len);
  }
  if (c->len == BUF_BYTES) return -1;
  return out_len > 0 ? write_all(c->fd, out, out_len) : 0;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: ceiling <port>\n");
    return 2;
  }
  reply_len = (size_t)snprintf(reply, sizeof reply,
                               "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s",
                               sizeof BODY - 1, BODY);
  int one = 1;
  int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[1]))};
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(lfd, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(lfd, 512) < 0) {
    perror("ceiling: listen");
    return 1;
  }
  int ep = epoll_create1(0);
  struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
  epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
  printf("ceiling listening on %s\n", argv[1]);
  fflush(stdout);
  struct epoll_event events[MAX_EVENTS];
  for (;;) {
    int n = epoll_wait(ep, events, MAX_EVENTS, -1);
    for (int i = 0; i < n; i++) {
      struct conn *c = events[i].data.ptr;
      if (c == NULL) {
        int fd;
        while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
          setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          struct conn *nc = malloc(sizeof *nc);
          if (nc == NULL) {
            close(fd);
            continue;
          }
          nc->fd = fd;
          nc->len = 0;
          struct epoll_event cev = {.events = EPOLLIN, .data.ptr = nc};
          epoll_ctl(ep, EPOLL_CTL_ADD, fd, &cev);
        }
        continue;
      }
      ssize_t r = read(c->fd, c->buf + c->len, BUF_BYTES - c->len);
      if (r < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (r > 0) c->len += (size_t)r;
      if (r <= 0 || serve(c) < 0) {
        close(c->fd);
        free(c);
      }
    }
  }
}
