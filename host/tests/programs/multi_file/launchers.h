#pragma once
void launch_saxpy(float a, float* x, float* y, int n);
void launch_scale(float* x, int n, int reps);
int pick_block(int n);
