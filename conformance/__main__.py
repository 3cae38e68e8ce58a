from conformance.runner import main

raise SystemExit(main())
