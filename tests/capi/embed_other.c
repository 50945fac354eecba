/* A second translation unit including the embedded model's header (embed_test.c). */
#include "demo_model.h"

const void* other_view_of_model(void);
const void* other_view_of_model(void) { return demo_model_data; }
