// Owns the console's entry point: styles, the page list, and mounting the shell into #app.
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { entitiesPage } from './entities-page.js';
import { entityPage } from './entity-page.js';
import { metricsPage } from './metrics-page.js';
import { mountShell, type PageRoute } from './shell.js';

/** The pages, in navigation order; entityPage answers `#/entities/<id>` (two segments). */
const ROUTES: readonly PageRoute[] = [
  { page: metricsPage, depth: 1 },
  { page: entitiesPage, depth: 1 },
  { page: entityPage, depth: 2 },
];

const app = document.getElementById('app');
if (app === null) throw new Error('The console needs an element with id "app".');
mountShell(app, ROUTES);
