int g_block = 128;
