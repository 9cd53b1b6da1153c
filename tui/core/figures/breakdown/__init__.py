"""The GPU breakdown: device time split into compute, communication, memory and idle."""
