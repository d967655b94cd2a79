// Host-code mutant (the audit's #include check): the reference solution, built as the student's own.
// Never compiled: the check reads it before the compiler would.
#include "../../../../solutions/02_memory/memory.cu"
