#pragma once
#define DEFAULT_N (1 << 18)
constexpr int kMaxBlock = 512;
