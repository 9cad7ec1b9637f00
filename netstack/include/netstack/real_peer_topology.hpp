#pragma once
// The two namespaces of a real-peer run and the
// plumbing between them:
//
//   our TcpSender --fd-- TUN "rpt<pid>" [ns near]  --forwarding--  veth  ==  veth [ns far]  Linux TCP listener
//      198.18.1.2        198.18.1.1/24                             198.18.2.1/24  198.18.2.2/24, port 5001
//   (IPv6: fd00:0:0:1::2   fd00:0:0:1::1/64                         fd00:0:0:2::1/64  fd00:0:0:2::2/64)
//
// The kernel of `near` routes between the TUN device and the veth pair, so
// the peer is the unmodified Linux TCP of `far` (default route back via
// near). Addresses come from 198.18.0.0/15 (RFC 2544 benchmarking) and the
// ULA prefix fd00::/8 (RFC 4193); nothing is routed anywhere else.

#include <string>
#include <vector>

#include "netstack/address.hpp"
#include "netstack/netns.hpp"
#include "netstack/tun_device.hpp"

namespace netstack {

/// Deletes the namespaces named rtopeer-near-PID / rtopeer-far-PID whose
/// process PID no longer exists: what a run killed by SIGKILL (which no
/// handler can catch) leaves behind. Only names of that exact form are
/// touched. Returns how many were deleted.
int reap_stale_namespaces();

/// Namespaces, TUN device and addresses of one run. Move-only; destruction
/// closes the TUN device and deletes the namespaces this object made (which
/// removes the veth pair and the routes with them).
struct RealPeerTopology {
  /// Builds everything. `ipv6` picks the address family of the connection.
  /// `existing_near` names an existing namespace to hold the TUN device
  /// instead of a new one (its IP forwarding is switched on and left on, and
  /// for IPv6 its accept_dad defaults are set to 0 and left so; the
  /// TUN device and veth end are removed at the end). Names are suffixed with
  /// the process id so parallel runs do not collide. Throws
  /// std::runtime_error / std::system_error naming the failing step; anything
  /// built so far is torn down before the exception leaves.
  /// Calls reap_stale_namespaces() first.
  static RealPeerTopology build(bool ipv6, const std::string& existing_near);

  /// Namespace holding the TUN device (made here unless existing_near).
  NetNamespace near;
  /// Namespace of the Linux listener (always made here).
  NetNamespace far;
  /// Our stack's endpoint (address on the TUN subnet, an ephemeral port).
  Endpoint local;
  /// The Linux listener's endpoint.
  Endpoint peer;
  /// The TUN device, created inside `near`, opened by this process. Declared
  /// last so it closes before the namespaces go.
  TunDevice tun;
};

}  // namespace netstack
