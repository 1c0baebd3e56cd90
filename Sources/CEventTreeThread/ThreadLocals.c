#include "CEventTreeThread.h"

__thread void *_Nullable eventtree_delivery_stack = 0;
__thread long eventtree_raising_thread = 0;
