"""Development tools for dice-companion (scene renderer, helpers); never needed at run time."""
