// Include mutant (the #include check): the reference solution, included from where a
// student's file sits (labs/02_memory/). Never compiled: the check reads it before the compiler would.
#include "../../solutions/02_memory/memory.cu"
