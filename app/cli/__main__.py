"""`python -m app.cli …` runs the `deputy` command."""

from app.cli import main

if __name__ == "__main__":
    main()
