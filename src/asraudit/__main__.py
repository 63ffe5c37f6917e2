import sys

from asraudit.cli import main

sys.exit(main())
