#include "CEventTreeThread.h"

__thread void *_Nullable eventtree_delivery_stack = 0;
