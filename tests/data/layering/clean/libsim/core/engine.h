/* The lowest folder: it includes nothing of the tree. */
