/* Tokenizes a text with the tokenizer stored in a converted model file, through the
 * installed attnrt/tokenizer.h, and decodes the ids again.
 * Usage: example MODEL.attnrt TEXT
 * Prints "ids: 1,2,3" (the format of `attnrt tokenize MODEL --text TEXT`) and "text: ...". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attnrt/tokenizer.h"

static void* read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  void* data = NULL;
  long n;
  if (f == NULL) return NULL;
  if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
    data = malloc((size_t)n);
    if (data != NULL && fread(data, 1, (size_t)n, f) != (size_t)n) {
      free(data);
      data = NULL;
    }
    *size = (size_t)n;
  }
  fclose(f);
  return data;
}

int main(int argc, char** argv) {
  attnrt_tokenizer* t = NULL;
  attnrt_message message;
  int32_t ids[256];
  char text[1024];
  size_t file_size = 0, count = 0, length = 0, i;
  void* file;
  if (argc != 3) return fprintf(stderr, "usage: %s MODEL.attnrt TEXT\n", argv[0]), 2;
  file = read_file(argv[1], &file_size);
  if (file == NULL) return fprintf(stderr, "cannot read %s\n", argv[1]), 1;
  if (attnrt_tokenizer_open(&t, file, file_size, &message) != ATTNRT_OK) {
    return fprintf(stderr, "%s: %s\n", argv[1], message.text), 1;
  }
  if (attnrt_tokenize(t, argv[2], strlen(argv[2]), 1, ids, 256, &count) != ATTNRT_OK ||
      attnrt_detokenize(t, ids, count, 1, text, sizeof(text), &length) != ATTNRT_OK) {
    return fprintf(stderr, "%s\n", attnrt_tokenizer_message(t)), 1;
  }
  printf("ids: ");
  for (i = 0; i < count; ++i) printf(i > 0 ? ",%ld" : "%ld", (long)ids[i]);
  printf("\ntext: %s\n", text);
  attnrt_tokenizer_close(t);
  free(file);
  return 0;
}
