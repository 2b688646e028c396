// The engine's Web Worker entry: exposes the pipeline over Comlink, nothing else.
import * as Comlink from 'comlink';
import { Engine } from './pipeline';

Comlink.expose(new Engine());
