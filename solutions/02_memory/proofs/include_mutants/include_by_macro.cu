// Include mutant (the #include check): a file named by a macro, which only the
// preprocessor would resolve, spelled across a line splice and a comment. Never compiled.
#define SOMEWHERE_ELSE "/dev/zero"
# /* a comment */ include \
    SOMEWHERE_ELSE
