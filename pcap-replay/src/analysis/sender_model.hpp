#pragma once
// The sender model the connection lifecycle (analyzer.cpp) drives: one per
// direction of a connection and per profile reading. It is the verdict
// engine of analysis/engine/.

#include "analysis/engine/sender_engine.hpp"

namespace replay {

using SenderModel = engine::SenderEngine;

}  // namespace replay
