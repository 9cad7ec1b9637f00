// Namespaces + TUN + veth + forwarding for a real-peer run; see real_peer_topology.hpp.
#include <netstack/real_peer_topology.hpp>

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <stdexcept>

namespace netstack {

int reap_stale_namespaces() {
  DIR* dir = ::opendir("/run/netns");
  if (dir == nullptr) return 0;
  std::vector<std::string> stale;
  while (const dirent* e = ::readdir(dir)) {
    const std::string name = e->d_name;
    std::string rest;
    for (const char* prefix : {"rtopeer-near-", "rtopeer-far-"}) {
      if (name.rfind(prefix, 0) == 0) rest = name.substr(std::string(prefix).size());
    }
    if (rest.empty() || rest.find_first_not_of("0123456789") != std::string::npos || rest.size() > 9) continue;
    const long pid = std::strtol(rest.c_str(), nullptr, 10);
    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) stale.push_back(name);
  }
  ::closedir(dir);
  for (const auto& name : stale) run_command_status({"ip", "netns", "del", name}, true);
  return static_cast<int>(stale.size());
}

RealPeerTopology RealPeerTopology::build(bool ipv6, const std::string& existing_near) {
  reap_stale_namespaces();
  const std::string id = std::to_string(::getpid());
  NetNamespace far = NetNamespace::create("rtopeer-far-" + id);
  NetNamespace near = existing_near.empty() ? NetNamespace::create("rtopeer-near-" + id)
                                            : NetNamespace::existing(existing_near);
  const std::string tun_name = "rpt" + id;
  const std::string veth_near = "rpa" + id;
  const std::string veth_far = "rpb" + id;

  if (ipv6) {
    // No duplicate address detection on the interfaces made below: while the
    // link-local address is tentative (~1-2 s) the kernel sends no neighbor
    // solicitation, so the first SYN would wait that long in the near
    // namespace's neighbor queue. Must be set before the devices exist.
    for (const NetNamespace* ns : {&near, &far}) {
      ns->sysctl("net/ipv6/conf/default/accept_dad", "0");
      ns->sysctl("net/ipv6/conf/all/accept_dad", "0");
    }
  }
  // veth pair: one end in each namespace (deleting `far` removes both ends).
  run_command({"ip", "-n", far.name(), "link", "add", veth_far, "type", "veth", "peer", "name", veth_near,
               "netns", near.name()});

  TunDevice tun = [&] {
    ScopedNetnsEntry inside(near);  // the device is created in the namespace we are in
    return TunDevice::open(tun_name);
  }();

  Endpoint local, peer;
  if (ipv6) {
    const auto addr = [](unsigned subnet, unsigned host) {
      return *IpAddress::parse("fd00:0:0:" + std::to_string(subnet) + "::" + std::to_string(host));
    };
    // nodad: usable at once (no duplicate address detection wait).
    near.ip({"-6", "addr", "add", "fd00:0:0:1::1/64", "dev", tun_name, "nodad"});
    near.ip({"-6", "addr", "add", "fd00:0:0:2::1/64", "dev", veth_near, "nodad"});
    far.ip({"-6", "addr", "add", "fd00:0:0:2::2/64", "dev", veth_far, "nodad"});
    near.sysctl("net/ipv6/conf/all/forwarding", "1");
    local = Endpoint{addr(1, 2), 40000};
    peer = Endpoint{addr(2, 2), 5001};
  } else {
    near.ip({"addr", "add", "198.18.1.1/24", "dev", tun_name});
    near.ip({"addr", "add", "198.18.2.1/24", "dev", veth_near});
    far.ip({"addr", "add", "198.18.2.2/24", "dev", veth_far});
    near.sysctl("net/ipv4/ip_forward", "1");
    local = Endpoint{IpAddress::v4(198, 18, 1, 2), 40000};
    peer = Endpoint{IpAddress::v4(198, 18, 2, 2), 5001};
  }
  near.ip({"link", "set", tun_name, "up"});
  near.ip({"link", "set", veth_near, "up"});
  far.ip({"link", "set", veth_far, "up"});
  if (ipv6) {
    far.ip({"-6", "route", "add", "default", "via", "fd00:0:0:2::1", "dev", veth_far});
  } else {
    far.ip({"route", "add", "default", "via", "198.18.2.1", "dev", veth_far});
  }
  return RealPeerTopology{std::move(near), std::move(far), local, peer, std::move(tun)};
}

}  // namespace netstack
