import { render } from 'preact';
import './styles/base.css';
import './styles/console.css';
import './styles/wallboard.css';
import './styles/reports.css';
import './styles/directory-admin.css';
import { App } from './app';

render(<App />, document.getElementById('app') as HTMLElement);
