// Include mutant (the #include check): a file outside the workbook, whose text the
// compiler's errors would print (and /dev/zero would make it ask for memory without end). Never
// compiled: the check reads it before the compiler would.
#include "/etc/passwd"
