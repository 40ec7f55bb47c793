/* A header of no source, in the folder libsim. */
