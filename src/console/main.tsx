import { render } from 'preact';
import './styles/base.css';
import './styles/console.css';
import './styles/wallboard.css';
import './styles/reports.css';
import './styles/directory-admin.css';
import './styles/pbx.css';
import { App } from './app';

// The page holds a loading line until this runs (scripts/build-console.mjs); Preact keeps a root's children it did
// not make, so the line is taken out first.
const root = document.getElementById('app') as HTMLElement;
root.textContent = '';
render(<App />, root);
